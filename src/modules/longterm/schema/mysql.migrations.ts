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

/** This feature's mysql migrations, oldest first. */
export const LONGTERM_MYSQL_MIGRATIONS: readonly MigrationDefinition[] = [longterm];
