import type { MigrationDefinition } from '../../../connections/migrations/migration-definition.js';

/** Agent runs: the run cache and run records, key/value per run, with a retention. */
const agentRuns: MigrationDefinition = {
  name: 'AgentRuns1764547200000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_run_entries (
      run_id TEXT NOT NULL,
      entry_key TEXT NOT NULL,
      value TEXT NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (run_id, entry_key)
    )`,
    'CREATE INDEX IF NOT EXISTS idx_agent_run_entries_expires_at ON agent_run_entries (expires_at)',
  ],
  down: [
    'DROP INDEX IF EXISTS idx_agent_run_entries_expires_at',
    'DROP TABLE IF EXISTS agent_run_entries',
  ],
};

/** This feature's sqlite migrations, oldest first. */
export const AGENT_RUNS_SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [agentRuns];
