import type { DataSource } from 'typeorm';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type { SqlDialect } from './sql-target.js';

/** Maps a DataSource's TypeORM driver type to the package's dialect, or rejects it. */
export function dialectOfDataSource(dataSource: DataSource): SqlDialect {
  const type = dataSource.options.type;
  if (type === 'postgres') return 'postgres';
  if (type === 'mysql' || type === 'mariadb') return 'mysql';
  if (type === 'better-sqlite3') return 'sqlite';
  throw new InvalidArgumentError(
    'dataSource',
    `has the TypeORM type "${type}", which the package does not support: use postgres, mysql, mariadb or better-sqlite3`,
  );
}
