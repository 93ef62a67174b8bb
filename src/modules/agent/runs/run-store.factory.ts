import type { DataSource } from 'typeorm';
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
import type { ConversationDirectory } from '../conversations/conversation-directory.interface.js';
import { InMemoryConversationDirectory } from '../conversations/in-memory.conversation-directory.js';
import { RedisConversationDirectory } from '../conversations/redis.conversation-directory.js';
import { SqlConversationDirectory } from '../conversations/sql.conversation-directory.js';

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

/** The agent's stores on one backend: runs, and the conversation directory. */
export interface OpenedRunStore {
  store: RunStore;
  directory: ConversationDirectory;
  cleanup: Cleanup;
}

/**
 * The run store and the conversation directory on the configured backend, through the connection
 * registry. On Redis the directory's keys sit beside the runs' (`…runs:` becomes `…conversations:`).
 */
export async function openRunStore(
  options: AgentRunsBackendOptions | undefined,
  registry: ConnectionRegistry,
): Promise<OpenedRunStore> {
  const retention = options?.retentionMs ?? DEFAULT_RUN_RETENTION_MS;
  const none: Cleanup = async () => undefined;
  if (!options || options.backend === 'memory')
    return {
      store: new InMemoryRunStore(retention),
      directory: new InMemoryConversationDirectory(),
      cleanup: none,
    };
  if (options.backend === 'redis') {
    const lease = await registry.useRedis(options);
    return {
      store: new RedisRunStore(lease.value, options.keyPrefix, retention),
      directory: new RedisConversationDirectory(lease.value, directoryPrefix(options.keyPrefix)),
      cleanup: lease.release,
    };
  }
  const migrationsRun = options.migrationsRun ?? true;
  const schema = { migrationsRun, schema: AGENT_RUNS_SCHEMA };
  if ('dataSource' in options) {
    // Validated: a token was resolved to its DataSource by forRoot.
    const connection = await registry.adoptDataSource(options.dataSource as DataSource, schema);
    return {
      store: new SqlRunStore(connection, retention),
      directory: new SqlConversationDirectory(connection),
      cleanup: none,
    };
  }
  const lease = await registry.acquireSql(sqlTargetOf(options), schema);
  return {
    store: new SqlRunStore(lease.value, retention),
    directory: new SqlConversationDirectory(lease.value),
    cleanup: lease.release,
  };
}

/** The Redis key prefix of the directory, derived from the runs' prefix. */
function directoryPrefix(runsPrefix = 'agent-memory:runs:'): string {
  return runsPrefix.endsWith('runs:')
    ? `${runsPrefix.slice(0, -'runs:'.length)}conversations:`
    : `${runsPrefix}conversations:`;
}
