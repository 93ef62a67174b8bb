import { type DataSourceOptions, EntitySchema } from 'typeorm';
import { MIGRATIONS_TABLE } from '../migrations/migration-definition.js';
import { agentMemoryMigrations } from '../migrations/typeorm-migrations.js';
import { agentMemoryEntitySchemas } from './package-entities.js';
import type { SqlTarget } from './sql-target.js';

/** Tuning shared by every DataSource the package opens. */
export interface DataSourceTuning {
  /** Connections in a PostgreSQL/MySQL pool (default 10). */
  poolSize?: number;
  /** SQLite busy timeout in ms: how long a writer waits for another process's lock (default 5000). */
  sqliteBusyTimeoutMs?: number;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Builds the TypeORM options of the package's DataSource for one database: its entities, its
 * migrations and their table. The connection registry and the top-level `ormconfig.ts` (TypeORM CLI)
 * both use it. Imports TypeORM, so the registry loads this module only when a SQL backend is used.
 */
export function buildDataSourceOptions(
  target: SqlTarget,
  tuning: DataSourceTuning = {},
): DataSourceOptions {
  const common = {
    entities: agentMemoryEntitySchemas(target.dialect).map((options) => new EntitySchema(options)),
    migrations: agentMemoryMigrations(target.dialect),
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false,
    synchronize: false,
    logging: false,
  } as const;
  const poolSize = tuning.poolSize ?? DEFAULT_POOL_SIZE;
  switch (target.dialect) {
    case 'postgres':
      return { ...common, type: 'postgres', url: target.url, poolSize };
    case 'mysql':
      return {
        ...common,
        type: 'mysql',
        url: target.url,
        poolSize,
        charset: 'utf8mb4',
        supportBigNumbers: true,
        bigNumberStrings: false,
      };
    case 'sqlite':
      return {
        ...common,
        type: 'better-sqlite3',
        database: target.path,
        enableWAL: true,
        timeout: tuning.sqliteBusyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
      };
  }
}
