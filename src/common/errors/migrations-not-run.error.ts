import { AgentMemoryError } from './agent-memory.error.js';

/**
 * `migrationsRun: false` was set, but the database lacks some of the package's migrations. Raised at
 * bootstrap instead of failing on the first query.
 */
export class MigrationsNotRunError extends AgentMemoryError {
  constructor(
    readonly dialect: string,
    /** The migrations still to run. */
    readonly pending: readonly string[],
  ) {
    super(
      `The ${dialect} database lacks the package's migrations ${pending.join(', ')}. ` +
        'Run them (agentMemoryMigrations(dialect) in your DataSource, or the TypeORM CLI with ' +
        'ormconfig.ts), or set migrationsRun: true',
    );
  }
}
