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

/**
 * The agent's conversation directory: one row per conversation, newest activity first per
 * namespace (the part of the id before its last `/`).
 */
const agentConversations: MigrationDefinition = {
  name: 'AgentConversations1796083200000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_conversations (
      conversation_id VARBINARY(255) NOT NULL,
      namespace VARBINARY(255) NOT NULL,
      last_active_at BIGINT NOT NULL,
      PRIMARY KEY (conversation_id),
      KEY idx_agent_conversations_recent (namespace, last_active_at, conversation_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
  down: ['DROP TABLE IF EXISTS agent_conversations'],
};

/**
 * A conversation's title (`''` before it has one, else `=` and the title, `=` alone once cleared),
 * preview (its newest user message) and metadata (a JSON object of strings), each `''` for none
 * (not NULL: TypeORM misreads the NULL default of a nullable column on MariaDB).
 */
const agentConversationDetails: MigrationDefinition = {
  name: 'AgentConversationDetails1796860800000',
  up: [
    `ALTER TABLE agent_conversations
      ADD COLUMN IF NOT EXISTS title LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
      ADD COLUMN IF NOT EXISTS preview LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
      ADD COLUMN IF NOT EXISTS metadata LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT ''`,
  ],
  down: [
    `ALTER TABLE agent_conversations
      DROP COLUMN IF EXISTS metadata, DROP COLUMN IF EXISTS preview, DROP COLUMN IF EXISTS title`,
  ],
};

/** This feature's mysql migrations, oldest first. */
export const AGENT_RUNS_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [
  agentRuns,
  agentConversations,
  agentConversationDetails,
];
