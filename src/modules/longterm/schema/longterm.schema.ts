import type { FeatureSchema } from '../../connections/migrations/feature-schema.js';
import { longtermEntitySchemas } from './longterm.entities.js';
import { LONGTERM_MYSQL_MIGRATIONS } from './mysql.migrations.js';
import { LONGTERM_POSTGRES_MIGRATIONS } from './postgres.migrations.js';
import { LONGTERM_SQLITE_MIGRATIONS } from './sqlite.migrations.js';

/** The tables of long-term memory: long-term records and per-entity seq counters. */
export const LONGTERM_SCHEMA: FeatureSchema = {
  name: 'long-term memory',
  migrations: (dialect) =>
    ({
      postgres: LONGTERM_POSTGRES_MIGRATIONS,
      mysql: LONGTERM_MYSQL_MIGRATIONS,
      sqlite: LONGTERM_SQLITE_MIGRATIONS,
    })[dialect],
  entities: longtermEntitySchemas,
};
