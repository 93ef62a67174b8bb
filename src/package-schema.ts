import { AGENT_RUNS_SCHEMA } from './modules/agent/runs/schema/agent-runs.schema.js';
import { CHAT_MEMORY_SCHEMA } from './modules/chat-memory/schema/chat-memory.schema.js';
import type { FeatureSchema } from './modules/connections/migrations/feature-schema.js';
import {
  type MigrationDefinition,
  migrationTimestamp,
} from './modules/connections/migrations/migration-definition.js';
import {
  type TypeormMigrationClass,
  toTypeormMigrations,
} from './modules/connections/migrations/typeorm-migrations.js';
import type { SqlDialect } from './modules/connections/sql/sql-target.js';
import { LANGGRAPH_SCHEMA } from './modules/langgraph/schema/langgraph.schema.js';
import { LONGTERM_SCHEMA } from './modules/longterm/schema/longterm.schema.js';
import type { EntitySchemaOptions } from 'typeorm';

/**
 * Every feature's tables, collected above the features (each module migrates only its own; this
 * list serves the TypeORM CLI through `ormconfig.ts` and apps that run the migrations themselves).
 */
export const PACKAGE_SCHEMAS: readonly FeatureSchema[] = [
  CHAT_MEMORY_SCHEMA,
  AGENT_RUNS_SCHEMA,
  LONGTERM_SCHEMA,
  LANGGRAPH_SCHEMA,
];

/** Every migration of the package for one dialect, oldest first. */
export function packageMigrations(dialect: SqlDialect): MigrationDefinition[] {
  return PACKAGE_SCHEMAS.flatMap((schema) => schema.migrations(dialect)).sort(
    (a, b) => migrationTimestamp(a) - migrationTimestamp(b),
  );
}

/**
 * The package's migrations of one dialect as TypeORM migration classes, for users who run
 * migrations themselves (`migrationsRun: false`): add them to your DataSource's `migrations`, or use
 * the repository's `ormconfig.ts` with the TypeORM CLI.
 */
export function agentMemoryMigrations(dialect: SqlDialect): TypeormMigrationClass[] {
  return toTypeormMigrations(packageMigrations(dialect));
}

/**
 * Every table of the package as TypeORM entity schema options, for one dialect. Plain options, so
 * that importing them does not load TypeORM; `new EntitySchema(options)` turns each into an entity.
 */
export function agentMemoryEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  return PACKAGE_SCHEMAS.flatMap((schema) => schema.entities(dialect));
}
