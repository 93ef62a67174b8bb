/**
 * One reviewed schema change of the package, as the SQL statements of one dialect.
 *
 * The name follows TypeORM's convention (a class-like name ending in a 13-digit timestamp), so the
 * same definitions run through the package's own locked runner at module start and, wrapped by
 * `toTypeormMigrations`, through the TypeORM CLI or a user's DataSource.
 */
export interface MigrationDefinition {
  readonly name: string;
  /** Statements applying the change, in order. Each must be safe to re-run after a crash. */
  readonly up: readonly string[];
  /** Statements reverting it, in order. */
  readonly down: readonly string[];
}

/** The table in which the package records the migrations it ran (TypeORM's layout). */
export const MIGRATIONS_TABLE = 'agent_memory_migrations';

/** The timestamp TypeORM reads from the end of a migration name. */
export function migrationTimestamp(definition: MigrationDefinition): number {
  const match = /(\d{13})$/.exec(definition.name);
  if (!match)
    throw new Error(`Migration name "${definition.name}" must end in a 13-digit timestamp`);
  return Number(match[1]);
}
