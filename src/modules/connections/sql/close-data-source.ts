import type { DataSource } from 'typeorm';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import { sqliteHandle } from './sqlite-handle.js';
import type { SqlDialect } from './sql-target.js';

/**
 * Closes a DataSource the package opened. On SQLite the writes still waiting for their group commit
 * are committed first, so none fails because the file closed under it.
 */
export function closeDataSource(dataSource: DataSource, dialect: SqlDialect): Promise<void> {
  if (dialect === 'sqlite' && dataSource.isInitialized)
    SqliteGroupCommit.drain(sqliteHandle(dataSource));
  return dataSource.destroy();
}
