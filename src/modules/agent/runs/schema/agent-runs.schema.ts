import type { FeatureSchema } from '../../../connections/migrations/feature-schema.js';
import { runEntryEntitySchemas } from './run-entries.entities.js';
import { AGENT_RUNS_MYSQL_MIGRATIONS } from './mysql.migrations.js';
import { AGENT_RUNS_POSTGRES_MIGRATIONS } from './postgres.migrations.js';
import { AGENT_RUNS_SQLITE_MIGRATIONS } from './sqlite.migrations.js';

/** The agent's tables: run records and the run cache, and the conversation directory. */
export const AGENT_RUNS_SCHEMA: FeatureSchema = {
  name: 'agent runs',
  migrations: (dialect) =>
    ({
      postgres: AGENT_RUNS_POSTGRES_MIGRATIONS,
      mysql: AGENT_RUNS_MYSQL_MIGRATIONS,
      sqlite: AGENT_RUNS_SQLITE_MIGRATIONS,
    })[dialect],
  entities: runEntryEntitySchemas,
};
