import type { LoggerService } from '@nestjs/common';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { DataSource } from 'typeorm';
import type { DataSourceOption } from '../connections/sql/data-source-option.js';
import type { Lease } from '../../common/lease.js';
import { ConnectionRegistry, type SqlConnection } from '../connections/connection-registry.js';
import { createSqlExecutor } from '../connections/sql/sql-executor.js';
import { parseStoreUri } from '../connections/store-uri.js';
import { AgentMemoryCheckpointSaver } from './agent-memory-checkpoint-saver.js';
import { InMemoryCheckpointRows } from './backends/in-memory.checkpoint-rows.js';
import { RedisCheckpointRows } from './backends/redis.checkpoint-rows.js';
import { SqlCheckpointRows } from './backends/sql.checkpoint-rows.js';
import { LANGGRAPH_SCHEMA } from './schema/langgraph.schema.js';

/** Where and how {@link openCheckpointSaver} stores checkpoints. */
export interface CheckpointSaverOptions {
  /**
   * The backend, as the package's other modules name theirs: `memory://`, `sqlite:<path>`,
   * `postgres://…`, `mysql://…` / `mariadb://…`, `redis://…` or `redis+cluster://…`.
   */
  uri?: string;
  /**
   * Or the app's initialized TypeORM DataSource (never closed by the package); in
   * `LangGraphModule.forRoot`, its injection token (`getDataSourceToken()`) works too.
   */
  dataSource?: DataSourceOption;
  /** Run the checkpointer's migrations at open (default `true`); otherwise they are checked. */
  migrationsRun?: boolean;
  /** The start of every Redis key (default `agent-memory:lg:`). */
  keyPrefix?: string;
  /** LangGraph's serializer to use instead of its default (JSON+). */
  serde?: SerializerProtocol;
}

/** Options of {@link openCheckpointSaver}: where to store, and where its log lines go. */
export interface OpenCheckpointSaverOptions extends CheckpointSaverOptions {
  /**
   * Where the checkpointer's log lines go: migrations applied (`log`), a failed health check or a
   * Redis connection error (`warn`). Default: quiet on success, warnings to `console.warn` as plain
   * text. Pass `console` (or your logger) to see everything.
   */
  logger?: Pick<LoggerService, 'log' | 'warn'>;
}

/** Warnings only, as plain lines: the default of code that runs outside Nest. */
const QUIET_LOGGER: Pick<LoggerService, 'log' | 'warn'> = {
  log: () => undefined,
  warn: (message: unknown) => console.warn(`nest-agent-memory: ${String(message)}`),
};

/**
 * Opens a LangGraph checkpointer on one of the package's backends, without Nest (in a Nest app,
 * `LangGraphModule` does this). Its migrations run under the package's migration lock. Release the
 * lease when done: it closes the connection. Quiet by default (see `logger`).
 */
export async function openCheckpointSaver(
  options: OpenCheckpointSaverOptions,
): Promise<Lease<AgentMemoryCheckpointSaver>> {
  const { logger = QUIET_LOGGER, ...storage } = options;
  options = storage;
  const registry = new ConnectionRegistry();
  registry.useLogger(logger);
  try {
    const lease = await openCheckpointSaverIn(options, registry);
    return {
      value: lease.value,
      release: async () => {
        await lease.release();
        await registry.onApplicationShutdown();
      },
    };
  } catch (error) {
    await registry.onApplicationShutdown();
    throw error;
  }
}

/**
 * Opens a checkpointer through a connection registry (so it shares the pool of every module on the
 * same database). The registry closes the connection when its last user lets go of it.
 */
export async function openCheckpointSaverIn(
  options: CheckpointSaverOptions,
  registry: ConnectionRegistry,
): Promise<Lease<AgentMemoryCheckpointSaver>> {
  const none = async () => undefined;
  const schema = { migrationsRun: options.migrationsRun ?? true, schema: LANGGRAPH_SCHEMA };
  if (options.dataSource !== undefined) {
    const connection = await registry.adoptDataSource(options.dataSource as DataSource, schema);
    return { value: sqlSaver(connection, options.serde), release: none };
  }
  const target = parseStoreUri(options.uri, { moduleName: 'LangGraphModule', option: 'uri' });
  switch (target.kind) {
    case 'memory':
      return {
        value: new AgentMemoryCheckpointSaver(new InMemoryCheckpointRows(), options.serde),
        release: none,
      };
    case 'redis': {
      const lease = await registry.acquireRedis(target.url);
      const rows = new RedisCheckpointRows(lease.value, options.keyPrefix);
      return { value: new AgentMemoryCheckpointSaver(rows, options.serde), release: lease.release };
    }
    case 'sql': {
      const lease = await registry.acquireSql(target.target, schema);
      return { value: sqlSaver(lease.value, options.serde), release: lease.release };
    }
  }
}

function sqlSaver(connection: SqlConnection, serde: SerializerProtocol | undefined) {
  const rows = new SqlCheckpointRows(
    createSqlExecutor(connection.dataSource, connection.dialect),
    connection.dialect,
  );
  return new AgentMemoryCheckpointSaver(rows, serde);
}
