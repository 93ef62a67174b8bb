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

/**
 * Gives the row's entity a tag if it has none and the row has text. Not `INSERT OR IGNORE`: in a
 * trigger, the conflict policy of the statement that fired it (an upsert's) would replace `IGNORE`.
 */
const NEW_TAG = `INSERT INTO agent_longterm_text_tags (entity_id) SELECT new.entity_id
        WHERE new.search_text IS NOT NULL AND new.search_text <> '' AND NOT EXISTS
          (SELECT 1 FROM agent_longterm_text_tags WHERE entity_id = new.entity_id);`;

/** A record's indexed words as the entity-partitioned index holds them: each behind its entity's tag. */
const taggedWords = (row: 'new' | 'r') =>
  `'q' || t.tag || 'q' || replace(${row}.search_text, ' ', ' q' || t.tag || 'q')`;

/**
 * Text search partitioned by entity: every word is indexed behind its entity's tag (`q<n>q`, the
 * entity's number in `agent_longterm_text_tags`), so a word's posting list holds one entity's rows
 * and a search reads its own entity's data only — its cost, and its term frequencies, no longer
 * depend on what other entities hold. The index is contentless (nothing stored twice); triggers keep
 * it in the row's transaction, as before. The records table is rebuilt with the value as its last
 * column (rowids kept): a row's columns are stored in order, so reading a key, a vector or the
 * indexed text no longer walks the pages of a large value before it.
 */
const searchByEntity: MigrationDefinition = {
  name: 'LongtermSearchByEntity1796947200000',
  up: [
    'DROP TRIGGER IF EXISTS agent_longterm_search_update',
    'DROP TRIGGER IF EXISTS agent_longterm_search_delete',
    'DROP TRIGGER IF EXISTS agent_longterm_search_insert',
    'DROP TABLE IF EXISTS agent_longterm_search',
    'DROP TABLE IF EXISTS agent_longterm_records_rebuilt',
    `CREATE TABLE agent_longterm_records_rebuilt (
      entity_id TEXT NOT NULL,
      key TEXT NOT NULL,
      seq INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      embedding_model TEXT,
      embedding BLOB,
      search_text TEXT,
      value TEXT NOT NULL,
      PRIMARY KEY (entity_id, key)
    )`,
    `INSERT INTO agent_longterm_records_rebuilt (rowid, entity_id, key, seq, updated_at, expires_at,
        embedding_model, embedding, search_text, value)
      SELECT rowid, entity_id, key, seq, updated_at, expires_at, embedding_model, embedding,
        search_text, value FROM agent_longterm_records`,
    'DROP TABLE agent_longterm_records',
    'ALTER TABLE agent_longterm_records_rebuilt RENAME TO agent_longterm_records',
    'CREATE INDEX IF NOT EXISTS idx_agent_longterm_records_expires_at ON agent_longterm_records (expires_at)',
    `CREATE TABLE IF NOT EXISTS agent_longterm_text_tags (
      tag INTEGER PRIMARY KEY,
      entity_id TEXT NOT NULL UNIQUE
    )`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS agent_longterm_terms USING fts5(words, content='',
      contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_terms_insert AFTER INSERT ON agent_longterm_records
    WHEN new.search_text IS NOT NULL AND new.search_text <> ''
    BEGIN
      ${NEW_TAG}
      INSERT INTO agent_longterm_terms (rowid, words)
        SELECT new.rowid, ${taggedWords('new')} FROM agent_longterm_text_tags t
        WHERE t.entity_id = new.entity_id;
    END`,
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_terms_delete AFTER DELETE ON agent_longterm_records
    BEGIN
      DELETE FROM agent_longterm_terms WHERE rowid = old.rowid;
    END`,
    // Only a write of the text re-indexes the row (not one of its vector).
    `CREATE TRIGGER IF NOT EXISTS agent_longterm_terms_update
    AFTER UPDATE OF search_text ON agent_longterm_records
    BEGIN
      DELETE FROM agent_longterm_terms WHERE rowid = old.rowid;
      ${NEW_TAG}
      INSERT INTO agent_longterm_terms (rowid, words)
        SELECT new.rowid, ${taggedWords('new')} FROM agent_longterm_text_tags t
        WHERE t.entity_id = new.entity_id AND new.search_text IS NOT NULL AND new.search_text <> '';
    END`,
    `INSERT OR IGNORE INTO agent_longterm_text_tags (entity_id)
      SELECT DISTINCT entity_id FROM agent_longterm_records
      WHERE search_text IS NOT NULL AND search_text <> ''`,
    // Rebuilt from scratch: a re-run after a crash starts from an empty index again.
    'DELETE FROM agent_longterm_terms',
    `INSERT INTO agent_longterm_terms (rowid, words)
      SELECT r.rowid, ${taggedWords('r')} FROM agent_longterm_records r
      JOIN agent_longterm_text_tags t ON t.entity_id = r.entity_id
      WHERE r.search_text IS NOT NULL AND r.search_text <> ''`,
  ],
  down: [
    'DROP TRIGGER IF EXISTS agent_longterm_terms_update',
    'DROP TRIGGER IF EXISTS agent_longterm_terms_delete',
    'DROP TRIGGER IF EXISTS agent_longterm_terms_insert',
    'DROP TABLE IF EXISTS agent_longterm_terms',
    'DROP TABLE IF EXISTS agent_longterm_text_tags',
    ...search.up.slice(3, 7),
    "INSERT INTO agent_longterm_search (agent_longterm_search) VALUES ('rebuild')",
  ],
};

/** This feature's sqlite migrations, oldest first. */
export const LONGTERM_SQLITE_MIGRATIONS: readonly MigrationDefinition[] = [
  longterm,
  search,
  searchByEntity,
];
