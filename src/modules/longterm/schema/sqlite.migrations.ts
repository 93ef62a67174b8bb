import type { MigrationDefinition } from '../../connections/migrations/migration-definition.js';

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

/**
 * Recall: each record's vector (float32, unit length) and the model that made it; and text search: each record's indexed text (its words, space-separated; NULL for a tombstone) in
 * `search_text`, and an FTS5 index over it kept by triggers in the same transaction as the row
 * (`unicode61`: the words are already normalized, so it only splits at the spaces). Records written
 * before this migration have no text until they are saved again.
 */
const search: MigrationDefinition = {
  name: 'LongtermSearch1796169600000',
  up: [
    'ALTER TABLE agent_longterm_records ADD COLUMN embedding BLOB',
    'ALTER TABLE agent_longterm_records ADD COLUMN embedding_model TEXT',
    'ALTER TABLE agent_longterm_records ADD COLUMN search_text TEXT',
    `CREATE VIRTUAL TABLE IF NOT EXISTS agent_longterm_search USING fts5(search_text,
      content='agent_longterm_records', content_rowid='rowid', tokenize='unicode61 remove_diacritics 0')`,
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_search_insert AFTER INSERT ON agent_longterm_records
    BEGIN
      INSERT INTO agent_longterm_search (rowid, search_text) VALUES (new.rowid, new.search_text);
    END`,
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_search_delete AFTER DELETE ON agent_longterm_records
    BEGIN
      INSERT INTO agent_longterm_search (agent_longterm_search, rowid, search_text)
      VALUES ('delete', old.rowid, old.search_text);
    END`,
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_search_update AFTER UPDATE ON agent_longterm_records
    BEGIN
      INSERT INTO agent_longterm_search (agent_longterm_search, rowid, search_text)
      VALUES ('delete', old.rowid, old.search_text);
      INSERT INTO agent_longterm_search (rowid, search_text) VALUES (new.rowid, new.search_text);
    END`,
    // Every existing row in the index (without text), so the triggers' deletes always match.
    "INSERT INTO agent_longterm_search (agent_longterm_search) VALUES ('rebuild')",
  ],
  down: [
    'ALTER TABLE agent_longterm_records DROP COLUMN embedding_model',
    'ALTER TABLE agent_longterm_records DROP COLUMN embedding',
    'DROP TRIGGER IF EXISTS agent_longterm_search_update',
    'DROP TRIGGER IF EXISTS agent_longterm_search_delete',
    'DROP TRIGGER IF EXISTS agent_longterm_search_insert',
    'DROP TABLE IF EXISTS agent_longterm_search',
    'ALTER TABLE agent_longterm_records DROP COLUMN search_text',
  ],
};

/** This feature's sqlite migrations, oldest first. */
export const LONGTERM_SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [longterm, search];
