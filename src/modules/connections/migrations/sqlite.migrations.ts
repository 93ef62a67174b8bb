import type { MigrationDefinition } from './migration-definition.js';

/**
 * Chat memory on SQLite. TEXT compares with the BINARY collation, so ids are byte-exact. Writes are
 * synchronous `BEGIN IMMEDIATE` transactions on the process's one connection (see the store).
 */
const chatMemory: MigrationDefinition = {
  name: 'ChatMemory1764460800000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_chat_conversations (
      conversation_id TEXT NOT NULL PRIMARY KEY,
      version INTEGER NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE IF NOT EXISTS agent_chat_messages (
      conversation_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      message_id TEXT NOT NULL,
      role TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (conversation_id, seq)
    )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS uq_agent_chat_messages_message_id
      ON agent_chat_messages (conversation_id, message_id)`,
  ],
  down: [
    'DROP INDEX IF EXISTS uq_agent_chat_messages_message_id',
    'DROP TABLE IF EXISTS agent_chat_messages',
    'DROP TABLE IF EXISTS agent_chat_conversations',
  ],
};

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
 * Long-term memory: entity-scoped records keyed (entity_id, key) in byte order for prefix range
 * scans; an empty value is a delete tombstone, and `expires_at` = 2^53 − 1 means never (no NULLs:
 * every guard is a plain comparison). Per-entity seq counters.
 */
const longterm: MigrationDefinition = {
  name: 'LongtermMemory1764633600000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_longterm_records (
      entity_id TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      seq INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (entity_id, key)
    )`,
    'CREATE INDEX IF NOT EXISTS idx_agent_longterm_records_expires_at ON agent_longterm_records (expires_at)',
    `CREATE TABLE IF NOT EXISTS agent_longterm_counters (
      entity_id TEXT NOT NULL PRIMARY KEY,
      value INTEGER NOT NULL
    )`,
  ],
  down: [
    'DROP TABLE IF EXISTS agent_longterm_counters',
    'DROP INDEX IF EXISTS idx_agent_longterm_records_expires_at',
    'DROP TABLE IF EXISTS agent_longterm_records',
  ],
};

/** The package's SQLite migrations, oldest first. */
export const SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [chatMemory, agentRuns, longterm];
