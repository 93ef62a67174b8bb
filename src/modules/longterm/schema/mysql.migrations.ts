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
      entity_id VARBINARY(255) NOT NULL,
      \`key\` VARBINARY(512) NOT NULL,
      value LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      seq BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (entity_id, \`key\`),
      KEY idx_agent_longterm_records_expires_at (expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS agent_longterm_counters (
      entity_id VARBINARY(255) NOT NULL,
      value BIGINT NOT NULL,
      PRIMARY KEY (entity_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
  down: [
    'DROP TABLE IF EXISTS agent_longterm_counters',
    'DROP TABLE IF EXISTS agent_longterm_records',
  ],
};

/**
 * Recall: each record's vector (float32, unit length) and the model that made it; and text search: each record's indexed words in `search_text` ('' for a tombstone), each word
 * suffixed with `__` so that InnoDB's full-text parser keeps one- and two-letter words (its minimum
 * token size is 3) and never drops a stop word; an InnoDB `FULLTEXT` index over it. Records written
 * before this migration have no text until they are saved again.
 */
const search: MigrationDefinition = {
  name: 'LongtermSearch1796169600000',
  up: [
    "ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS embedding LONGBLOB NOT NULL DEFAULT ''",
    "ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS embedding_model VARBINARY(255) NOT NULL DEFAULT ''",
    `ALTER TABLE agent_longterm_records
      ADD COLUMN IF NOT EXISTS search_text LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
      NOT NULL DEFAULT ''`,
    `ALTER TABLE agent_longterm_records
      ADD FULLTEXT INDEX IF NOT EXISTS idx_agent_longterm_records_search (search_text)`,
  ],
  down: [
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS embedding_model',
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS embedding',
    'ALTER TABLE agent_longterm_records DROP INDEX IF EXISTS idx_agent_longterm_records_search',
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS search_text',
  ],
};

/** `entityTag` of the row's entity (the store computes the same in the process). */
const TAG = 'LEFT(MD5(entity_id), 8)';

/**
 * Text search partitioned by entity: every indexed word is stored behind its entity's tag (the first
 * 8 hex digits of the MD5 of its id), so the full-text lookup of a word reads one entity's postings,
 * whatever other entities hold, and a word's document frequency is the entity's own. The stored
 * words are tagged in one statement (a re-run skips rows already tagged), the index kept up as it
 * goes (an index dropped and added again around the update found nothing on MariaDB 10.11).
 */
const searchByEntity: MigrationDefinition = {
  name: 'LongtermSearchByEntity1796947200000',
  up: [
    `UPDATE agent_longterm_records
      SET search_text = CONCAT(${TAG}, REPLACE(search_text, ' ', CONCAT(' ', ${TAG})))
      WHERE search_text <> '' AND LEFT(search_text, 8) <> ${TAG}`,
  ],
  down: [
    `UPDATE agent_longterm_records
      SET search_text = REPLACE(SUBSTRING(search_text, 9), CONCAT(' ', ${TAG}), ' ')
      WHERE search_text <> '' AND LEFT(search_text, 8) = ${TAG}`,
  ],
};

/** This feature's mysql migrations, oldest first. */
export const LONGTERM_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [
  longterm,
  search,
  searchByEntity,
];
