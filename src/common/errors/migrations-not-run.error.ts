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
        'Either let the module run them (migrationsRun: true, the default), or add ' +
        `agentMemoryMigrations('${dialect}') to your DataSource's migrations and run them as you ` +
        'run your own (migrationsRun: true on your DataSource, or ' +
        '`npx typeorm migration:run -d <your data source file>`). A module given a url or uri of ' +
        "its own looks for them in agent_memory_migrations: a data source file that runs them for it sets migrationsTableName: 'agent_memory_migrations'",
    );
  }
}
