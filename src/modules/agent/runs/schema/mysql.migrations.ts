import type { MigrationDefinition } from '../../../connections/migrations/migration-definition.js';

/** Agent runs: the run cache and run records, key/value per run, with a retention. */
const agentRuns: MigrationDefinition = {
  name: 'AgentRuns1764547200000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_run_entries (
      run_id VARBINARY(255) NOT NULL,
      entry_key VARBINARY(255) NOT NULL,
      value LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (run_id, entry_key),
      KEY idx_agent_run_entries_expires_at (expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
  down: ['DROP TABLE IF EXISTS agent_run_entries'],
};

/** This feature's mysql migrations, oldest first. */
export const AGENT_RUNS_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [agentRuns];
