import type { MigrationDefinition } from '../../connections/migrations/migration-definition.js';

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

/** This feature's sqlite migrations, oldest first. */
export const CHAT_MEMORY_SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [chatMemory];
