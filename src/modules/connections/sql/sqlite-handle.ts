import type BetterSqlite3 from 'better-sqlite3';
import type { DataSource } from 'typeorm';

/** The better-sqlite3 database handle that TypeORM's driver holds for a DataSource. */
export type SqliteHandle = BetterSqlite3.Database;

/**
 * Returns the one better-sqlite3 connection TypeORM opened for this DataSource. The SQLite stores
 * run their writes on it as synchronous `BEGIN IMMEDIATE` transactions, so no transaction ever
 * spans an `await`.
 */
export function sqliteHandle(dataSource: DataSource): SqliteHandle {
  const handle = (dataSource.driver as unknown as { databaseConnection?: SqliteHandle })
    .databaseConnection;
  if (!handle) throw new Error('The SQLite DataSource is not initialized');
  return handle;
}
