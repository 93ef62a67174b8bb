import type { MigrationDefinition } from '../../../connections/migrations/migration-definition.js';

/** Agent runs: the run cache and run records, key/value per run, with a retention. */
const agentRuns: MigrationDefinition = {
  name: 'AgentRuns1764547200000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_run_entries (
      run_id text COLLATE "C" NOT NULL,
      entry_key text COLLATE "C" NOT NULL,
      value text NOT NULL,
      expires_at bigint NOT NULL,
      CONSTRAINT pk_agent_run_entries PRIMARY KEY (run_id, entry_key)
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
      conversation_id text COLLATE "C" NOT NULL,
      namespace text COLLATE "C" NOT NULL,
      last_active_at bigint NOT NULL,
      CONSTRAINT pk_agent_conversations PRIMARY KEY (conversation_id)
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
    "ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS title text NOT NULL DEFAULT ''",
    "ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS preview text NOT NULL DEFAULT ''",
    "ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS metadata text NOT NULL DEFAULT ''",
  ],
  down: [
    'ALTER TABLE agent_conversations DROP COLUMN IF EXISTS metadata',
    'ALTER TABLE agent_conversations DROP COLUMN IF EXISTS preview',
    'ALTER TABLE agent_conversations DROP COLUMN IF EXISTS title',
  ],
};

/** This feature's postgres migrations, oldest first. */
export const AGENT_RUNS_POSTGRES_MIGRATIONS: readonly MigrationDefinition[] = [
  agentRuns,
  agentConversations,
  agentConversationDetails,
];
