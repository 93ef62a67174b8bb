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
      entity_id text COLLATE "C" NOT NULL,
      key text COLLATE "C" NOT NULL,
      value text NOT NULL,
      seq bigint NOT NULL,
      updated_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      CONSTRAINT pk_agent_longterm_records PRIMARY KEY (entity_id, key)
    )`,
    'CREATE INDEX IF NOT EXISTS idx_agent_longterm_records_expires_at ON agent_longterm_records (expires_at)',
    `CREATE TABLE IF NOT EXISTS agent_longterm_counters (
      entity_id text COLLATE "C" NOT NULL,
      value bigint NOT NULL,
      CONSTRAINT pk_agent_longterm_counters PRIMARY KEY (entity_id)
    )`,
  ],
  down: [
    'DROP TABLE IF EXISTS agent_longterm_counters',
    'DROP INDEX IF EXISTS idx_agent_longterm_records_expires_at',
    'DROP TABLE IF EXISTS agent_longterm_records',
  ],
};

/**
 * Recall: each record's vector (float32, unit length) and the model that made it; and text search: each record's indexed words as a `tsvector` (the package's words as quoted lexemes with
 * their positions, not re-parsed), NULL for a tombstone, written by the same
 * statement as the row; a GIN index over it. Records written before this migration have no vector
 * until they are saved again.
 */
const search: MigrationDefinition = {
  name: 'LongtermSearch1796169600000',
  up: [
    'ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS embedding bytea',
    'ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS embedding_model text COLLATE "C"',
    'ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS search_vector tsvector',
    `CREATE INDEX IF NOT EXISTS idx_agent_longterm_records_search
      ON agent_longterm_records USING GIN (search_vector)`,
  ],
  down: [
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS embedding_model',
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS embedding',
    'DROP INDEX IF EXISTS idx_agent_longterm_records_search',
    'ALTER TABLE agent_longterm_records DROP COLUMN IF EXISTS search_vector',
  ],
};

/**
 * Room on each page for a record's next version: a record saved again without a change to its key,
 * expiry or indexed words is then updated in place (a heap-only tuple), with no index written. At
 * the default fill (100 %), 11–13 % of such updates were, and each other one wrote every index again,
 * the GIN index of its words included. Pages written from now on keep 30 % free; pages already
 * written change when they are rewritten (`VACUUM FULL`, or a tool like pg_repack).
 */
const updateRoom: MigrationDefinition = {
  name: 'LongtermUpdateRoom1797465600000',
  up: ['ALTER TABLE agent_longterm_records SET (fillfactor = 70)'],
  down: ['ALTER TABLE agent_longterm_records RESET (fillfactor)'],
};

/** This feature's postgres migrations, oldest first. */
export const LONGTERM_POSTGRES_MIGRATIONS: readonly MigrationDefinition[] = [
  longterm,
  search,
  updateRoom,
];
