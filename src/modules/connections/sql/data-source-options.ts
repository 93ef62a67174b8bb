import { type DataSourceOptions, EntitySchema } from 'typeorm';
import { MIGRATIONS_TABLE, migrationTimestamp } from '../migrations/migration-definition.js';
import type { FeatureSchema } from '../migrations/feature-schema.js';
import { toTypeormMigrations } from '../migrations/typeorm-migrations.js';
import type { SqlTarget } from './sql-target.js';
import { sqlSocketOptions } from '../store-uri.js';

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
 * Builds the TypeORM options of a package DataSource for one database, with the entities and
 * migrations of the given features (the registry's own DataSources need none: the stores speak SQL
 * and the package runs its migrations itself), and the package's migrations table. The connection
 * registry and the top-level `ormconfig.ts` (TypeORM CLI, every feature) both use it. Imports
 * TypeORM, so the registry loads this module only when a SQL backend is used.
 */
export function buildDataSourceOptions(
  target: SqlTarget,
  tuning: DataSourceTuning = {},
  schemas: readonly FeatureSchema[] = [],
): DataSourceOptions {
  const migrations = schemas
    .flatMap((schema) => schema.migrations(target.dialect))
    .sort((a, b) => migrationTimestamp(a) - migrationTimestamp(b));
  const common = {
    entities: schemas
      .flatMap((schema) => schema.entities(target.dialect))
      .map((options) => new EntitySchema(options)),
    migrations: toTypeormMigrations(migrations),
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
        ...sqlSocketOptions(target.url),
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
        // Every commit synced to disk, always: SQLite's build default would give `FULL` to the
        // process that creates the file and `NORMAL` to every later one that opens it in WAL mode
        // (whose commits a power loss can undo).
        prepareDatabase: (db: { pragma(source: string): unknown }) => {
          db.pragma('synchronous = FULL');
        },
      };
  }
}
