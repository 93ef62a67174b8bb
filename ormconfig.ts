/**
 * TypeORM CLI entry (`npm run migration:show`, `npm run migration:run`): the package's DataSource for
 * the database the environment names (`CHAT_MEMORY_BACKEND`, `DATABASE_URL`, `SQLITE_PATH`), built
 * by the same options builder the modules use, so the CLI and the app agree on the migrations and
 * their table (`agent_memory_migrations`).
 */
import { DataSource } from 'typeorm';
import { loadSqlTarget } from './src/config/sql-target.config.js';
import { buildDataSourceOptions } from './src/modules/connections/sql/data-source-options.js';
import { PACKAGE_SCHEMAS } from './src/package-schema.js';

export default new DataSource(buildDataSourceOptions(loadSqlTarget(), {}, PACKAGE_SCHEMAS));
