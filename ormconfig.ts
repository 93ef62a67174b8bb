/**
 * TypeORM CLI entry (`npm run migration:show`, `npm run migration:run`): the example app's
 * DataSource for the database the environment names (`CHAT_MEMORY_BACKEND`, `DATABASE_URL`,
 * `SQLITE_PATH`), with exactly the options the app's `TypeOrmModule` uses, so the CLI and the app
 * agree on the migrations and their table (`agent_memory_migrations`).
 */
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from './src/config/database.config.js';
import { loadSqlTarget } from './src/config/sql-target.config.js';

export default new DataSource(appDataSourceOptions(loadSqlTarget()));
