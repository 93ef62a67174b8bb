import { sqlTargetOf } from '../../connections/sql/sql-target.js';
import type { ConnectionRegistry } from '../../connections/connection-registry.js';
import { dialectOfDataSource } from '../../connections/sql/dialect-of-data-source.js';
import { type ChatStoreBacking } from '../../chat-memory/interfaces/chat-store-backing.interface.js';
import type { AgentRunsBackendOptions } from '../agent.options.js';
import { InMemoryRunStore } from './in-memory.run-store.js';
import { RedisRunStore } from './redis.run-store.js';
import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './run-store.interface.js';
import { SqlRunStore } from './sql.run-store.js';
import { AGENT_RUNS_SCHEMA } from './schema/agent-runs.schema.js';

/** Something to undo at shutdown (a lease to release, a client to close). */
export type Cleanup = () => Promise<void>;

/**
 * The run options implied by the chat store's backing, when none are given: the same connection
 * (an adopted DataSource or Redis client, never closed by the run store), else process memory.
 */
export function defaultRunsOptions(backing: ChatStoreBacking | undefined): AgentRunsBackendOptions {
  switch (backing?.kind) {
    case 'sql':
      // The run tables go where the chat store's are, migrated the way the chat store's module is.
      return {
        backend: dialectOfDataSource(backing.dataSource),
        dataSource: backing.dataSource,
        migrationsRun: backing.migrationsRun,
      };
    case 'redis':
      return { backend: 'redis', client: backing.client };
    default:
      return { backend: 'memory' };
  }
}

/** The run store on the configured backend, through the connection registry. */
export async function openRunStore(
  options: AgentRunsBackendOptions | undefined,
  registry: ConnectionRegistry,
): Promise<{ store: RunStore; cleanup: Cleanup }> {
  const retention = options?.retentionMs ?? DEFAULT_RUN_RETENTION_MS;
  const none: Cleanup = async () => undefined;
  if (!options || options.backend === 'memory')
    return { store: new InMemoryRunStore(retention), cleanup: none };
  if (options.backend === 'redis') {
    const lease = await registry.useRedis(options);
    return {
      store: new RedisRunStore(lease.value, options.keyPrefix, retention),
      cleanup: lease.release,
    };
  }
  const migrationsRun = options.migrationsRun ?? true;
  if ('dataSource' in options) {
    return {
      store: new SqlRunStore(
        await registry.adoptDataSource(options.dataSource, {
          migrationsRun,
          schema: AGENT_RUNS_SCHEMA,
        }),
        retention,
      ),
      cleanup: none,
    };
  }
  const lease = await registry.acquireSql(sqlTargetOf(options), {
    migrationsRun,
    schema: AGENT_RUNS_SCHEMA,
  });
  return { store: new SqlRunStore(lease.value, retention), cleanup: lease.release };
}
