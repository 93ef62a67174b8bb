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

/** The entity's tag: the first 8 hex digits of the MD5 of its id. */
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

/**
 * Text search over a table of terms instead of InnoDB `FULLTEXT`: one row per (entity, term, record)
 * with the term's count, the record's number of distinct terms, update time and expiry, written in
 * the record's own transaction. InnoDB's full-text cache is synced to its index in a transaction of its own, and a
 * search running while such a sync commits can miss every record written since the sync before (the
 * cache is emptied before the synced words are committed); a search also reads every deleted
 * document id not yet optimised away, so it slows with every update and delete. The stored texts
 * are split into terms in SQL (each word is behind the entity's 8-character tag and ends in `__`);
 * a re-run after a partial fill skips the terms already in. The statement reads every record with
 * shared locks: writes wait until it is done.
 */
const searchTerms: MigrationDefinition = {
  name: 'LongtermSearchTerms1797292800000',
  up: [
    `CREATE TABLE IF NOT EXISTS agent_longterm_terms (
      entity_id VARBINARY(255) NOT NULL,
      term VARBINARY(256) NOT NULL,
      \`key\` VARBINARY(512) NOT NULL,
      tf INT NOT NULL,
      length INT NOT NULL,
      updated_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (entity_id, \`key\`, term),
      KEY idx_agent_longterm_terms_search (entity_id, term, tf, length, updated_at, expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    // The n-th word of each text through MariaDB's sequence engine (a record holds at most 2,000
    // words and as many stems): no recursion limit, no copy of the rest of the text per word.
    `INSERT IGNORE INTO agent_longterm_terms
        (entity_id, term, \`key\`, tf, length, updated_at, expires_at)
      SELECT entity_id, term, \`key\`, tf, COUNT(*) OVER (PARTITION BY entity_id, \`key\`),
        updated_at, expires_at
      FROM (
        SELECT w.entity_id, w.\`key\`, MAX(w.updated_at) AS updated_at,
          MAX(w.expires_at) AS expires_at, COUNT(*) AS tf,
          CONVERT(SUBSTRING(w.word, 9, CHAR_LENGTH(w.word) - 10) USING binary) AS term
        FROM (
          SELECT r.entity_id, r.\`key\`, r.updated_at, r.expires_at,
            SUBSTRING_INDEX(SUBSTRING_INDEX(r.search_text, ' ', s.seq), ' ', -1) AS word
          FROM agent_longterm_records r
          JOIN seq_1_to_10000 s
            ON s.seq <= 1 + CHAR_LENGTH(r.search_text) - CHAR_LENGTH(REPLACE(r.search_text, ' ', ''))
          WHERE r.search_text <> '') AS w
        WHERE CHAR_LENGTH(w.word) > 10
        GROUP BY w.entity_id, w.\`key\`, term) AS counted`,
  ],
  down: ['DROP TABLE IF EXISTS agent_longterm_terms'],
};

/**
 * The `FULLTEXT` index and its column go once the terms are in (a migration of its own, so that a
 * start that stops between the two never re-runs the fill without its column). Down adds them back
 * and gives each record its tagged words again from the terms.
 */
const dropFullText: MigrationDefinition = {
  name: 'LongtermSearchTermsOnly1797292800001',
  up: [
    'ALTER TABLE agent_longterm_records DROP INDEX IF EXISTS idx_agent_longterm_records_search',
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS search_text',
  ],
  down: [
    `ALTER TABLE agent_longterm_records
      ADD COLUMN IF NOT EXISTS search_text LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
      NOT NULL DEFAULT ''`,
    `SET STATEMENT group_concat_max_len = 67108864 FOR
      UPDATE agent_longterm_records r
      JOIN (SELECT entity_id, \`key\`, GROUP_CONCAT(TRIM(REPEAT(
          CONCAT(' ', LEFT(MD5(entity_id), 8), CONVERT(term USING utf8mb4), '__'), tf))
          ORDER BY term SEPARATOR ' ') AS words
        FROM agent_longterm_terms GROUP BY entity_id, \`key\`) t
        ON t.entity_id = r.entity_id AND t.\`key\` = r.\`key\`
      SET r.search_text = t.words`,
    `ALTER TABLE agent_longterm_records
      ADD FULLTEXT INDEX IF NOT EXISTS idx_agent_longterm_records_search (search_text)`,
  ],
};

/**
 * Term rows without the record's update time: saving a record again with its text then writes no
 * term (the update time changes with every save); a search by update time reads it from the record.
 * One `ALTER` (atomic). Down gives the terms their records' update times back.
 */
const termsWithoutUpdateTime: MigrationDefinition = {
  name: 'LongtermTermsWithoutUpdateTime1797379200000',
  up: [
    `ALTER TABLE agent_longterm_terms
      DROP INDEX IF EXISTS idx_agent_longterm_terms_search,
      DROP COLUMN IF EXISTS updated_at,
      ADD INDEX idx_agent_longterm_terms_search (entity_id, term, tf, length, expires_at)`,
  ],
  down: [
    `ALTER TABLE agent_longterm_terms
      ADD COLUMN IF NOT EXISTS updated_at BIGINT NOT NULL DEFAULT 0 AFTER length`,
    `UPDATE agent_longterm_terms t JOIN agent_longterm_records r
      ON r.entity_id = t.entity_id AND r.\`key\` = t.\`key\`
      SET t.updated_at = r.updated_at`,
    `ALTER TABLE agent_longterm_terms
      ALTER COLUMN updated_at DROP DEFAULT,
      DROP INDEX IF EXISTS idx_agent_longterm_terms_search,
      ADD INDEX idx_agent_longterm_terms_search
        (entity_id, term, tf, length, updated_at, expires_at)`,
  ],
};

/** This feature's mysql migrations, oldest first. */
export const LONGTERM_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [
  longterm,
  search,
  searchByEntity,
  searchTerms,
  dropFullText,
  termsWithoutUpdateTime,
];
