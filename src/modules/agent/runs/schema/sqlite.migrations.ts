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

/**
 * The agent's conversation directory: one row per conversation, newest activity first per
 * namespace (the part of the id before its last `/`).
 */
const agentConversations: MigrationDefinition = {
  name: 'AgentConversations1796083200000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_conversations (
      conversation_id TEXT NOT NULL,
      namespace TEXT NOT NULL,
      last_active_at INTEGER NOT NULL,
      PRIMARY KEY (conversation_id)
    )`,
    `CREATE INDEX IF NOT EXISTS idx_agent_conversations_recent
      ON agent_conversations (namespace, last_active_at, conversation_id)`,
  ],
  down: [
    'DROP INDEX IF EXISTS idx_agent_conversations_recent',
    'DROP TABLE IF EXISTS agent_conversations',
  ],
};

/**
 * A conversation's title (`''` before it has one, else `=` and the title, `=` alone once cleared),
 * preview (its newest user message) and metadata (a JSON object of strings), each `''` for none
 * (not NULL: TypeORM misreads the NULL default of a nullable column on MariaDB).
 */
const agentConversationDetails: MigrationDefinition = {
  name: 'AgentConversationDetails1796860800000',
  up: [
    "ALTER TABLE agent_conversations ADD COLUMN title TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE agent_conversations ADD COLUMN preview TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE agent_conversations ADD COLUMN metadata TEXT NOT NULL DEFAULT ''",
  ],
  down: [
    'ALTER TABLE agent_conversations DROP COLUMN metadata',
    'ALTER TABLE agent_conversations DROP COLUMN preview',
    'ALTER TABLE agent_conversations DROP COLUMN title',
  ],
};

/** This feature's sqlite migrations, oldest first. */
export const AGENT_RUNS_SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [
  agentRuns,
  agentConversations,
  agentConversationDetails,
];
