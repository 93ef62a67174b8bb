import type { SqlDialect } from '../sql/sql-target.js';
import type { MigrationDefinition } from './migration-definition.js';
import { MYSQL_MIGRATIONS } from './mysql.migrations.js';
import { POSTGRES_MIGRATIONS } from './postgres.migrations.js';
import { SQLITE_MIGRATIONS } from './sqlite.migrations.js';

const BY_DIALECT: Record<SqlDialect, readonly MigrationDefinition[]> = {
  postgres: POSTGRES_MIGRATIONS,
  mysql: MYSQL_MIGRATIONS,
  sqlite: SQLITE_MIGRATIONS,
};

/** Every migration of the package for one dialect, oldest first. */
export function packageMigrations(dialect: SqlDialect): readonly MigrationDefinition[] {
  return BY_DIALECT[dialect];
}
