import type { Lease } from '../../common/lease.js';
import type { DataSource } from 'typeorm';
import type { ConnectionRegistry, SqlConnection } from '../connections/connection-registry.js';
import { InMemoryLongtermStore } from './backends/in-memory.longterm.store.js';
import { MysqlLongtermStore } from './backends/mysql.longterm.store.js';
import { type PgvectorOption, openPgvector } from './backends/postgres-pgvector.js';
import { PostgresLongtermStore } from './backends/postgres.longterm.store.js';
import { RedisLongtermStore } from './backends/redis.longterm.store.js';
import { InMemorySeqCounter, RedisSeqCounter, SqlSeqCounter } from './backends/seq-counters.js';
import { SqliteLongtermStore } from './backends/sqlite.longterm.store.js';
import { checkLongtermServer } from './backends/mariadb-version.js';
import { LONGTERM_SCHEMA } from './schema/longterm.schema.js';
import type { LongtermMemoryStore, SeqCounter } from './interfaces/longterm-store.interface.js';
import { type StoreTarget, parseStoreUri } from '../connections/store-uri.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import type { LongtermStoreSettings } from './backends/base-longterm.store.js';
import { analyzerFor } from './recall/text-analyzer.js';

/** The tier's URI parsed; absent or empty means the tier is off (`undefined`). */
export function parseLongtermUri(uri: unknown): StoreTarget | undefined {
  if (uri === undefined || uri === null || uri === '') return undefined;
  return parseStoreUri(uri, { moduleName: 'LongtermMemoryModule', option: 'uri' });
}

/** The tier's store and counters (held as a lease on their connection). */
export interface LongtermTier {
  store: LongtermMemoryStore;
  counter: SeqCounter;
}

/** The opened tier and how to let go of its connection. */
export type LongtermBackend = Lease<LongtermTier>;

/**
 * Opens the tier's backend for its URI (or adopted DataSource) through the shared registry, or
 * `undefined` when the tier is off. The URI is parsed first, so a malformed one fails before any
 * driver is loaded.
 */
export async function openLongtermBackend(
  options: LongtermMemoryModuleOptions,
  registry: ConnectionRegistry,
): Promise<LongtermBackend | undefined> {
  const settings = {
    defaultTtlMs: options.defaultTtlMs,
    tombstoneTtlMs: options.tombstoneTtlMs,
    maxValueBytes: options.maxValueBytes,
    now: options.now,
    recordText: options.recordText,
    analyzer: analyzerFor(options.textSearch),
  };
  const none = async () => undefined;
  if (options.dataSource !== undefined) {
    // Validated: a token was resolved to its DataSource by forRoot. Never closed by the package.
    const connection = await registry.adoptDataSource(options.dataSource as DataSource, {
      migrationsRun: options.migrationsRun ?? true,
      schema: LONGTERM_SCHEMA,
    });
    return {
      value: await openSqlTier(connection, settings, options.recall?.pgvector),
      release: none,
    };
  }
  const target = parseLongtermUri(options.uri);
  if (!target) return undefined;
  if (target.kind !== 'sql' && options.recall?.pgvector) throw pgvectorNotHere(target.kind);
  switch (target.kind) {
    case 'memory': {
      const counter = new InMemorySeqCounter();
      return {
        value: { store: new InMemoryLongtermStore(settings, counter), counter },
        release: none,
      };
    }
    case 'redis': {
      const lease = await registry.acquireRedis(target.url);
      return {
        value: {
          store: new RedisLongtermStore(lease.value, options.keyPrefix, settings),
          counter: new RedisSeqCounter(lease.value, options.keyPrefix),
        },
        release: lease.release,
      };
    }
    case 'sql': {
      const lease = await registry.acquireSql(target.target, {
        migrationsRun: options.migrationsRun ?? true,
        schema: LONGTERM_SCHEMA,
      });
      try {
        return {
          value: await openSqlTier(lease.value, settings, options.recall?.pgvector),
          release: lease.release,
        };
      } catch (error) {
        await lease.release();
        throw error;
      }
    }
  }
}

/**
 * The SQL store and counter of a connection (MariaDB's version checked first; on PostgreSQL,
 * pgvector when installed, unless `pgvector` is false).
 */
async function openSqlTier(
  connection: SqlConnection,
  settings: LongtermStoreSettings,
  pgvector: PgvectorOption | undefined,
): Promise<LongtermTier> {
  const { dataSource, dialect } = connection;
  if (dialect === 'mysql') await checkLongtermServer(dataSource);
  if (dialect !== 'postgres' && pgvector) throw pgvectorNotHere(dialect);
  const store =
    dialect === 'postgres'
      ? new PostgresLongtermStore(dataSource, settings, await openPgvector(dataSource, pgvector))
      : dialect === 'mysql'
        ? new MysqlLongtermStore(dataSource, settings)
        : new SqliteLongtermStore(dataSource, settings);
  return { store, counter: new SqlSeqCounter(connection) };
}

function pgvectorNotHere(backend: string): Error {
  return new Error(`recall.pgvector is for PostgreSQL; this long-term tier is on ${backend}`);
}
