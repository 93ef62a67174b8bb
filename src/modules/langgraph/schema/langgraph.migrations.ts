import type { MigrationDefinition } from '../../connections/migrations/migration-definition.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';

interface ColumnTypes {
  id: string;
  bytes: string;
  integer: string;
  table: string;
}

const TYPES: Record<SqlDialect, ColumnTypes> = {
  postgres: { id: 'text COLLATE "C"', bytes: 'bytea', integer: 'integer', table: '' },
  mysql: {
    id: 'VARBINARY(255)',
    bytes: 'LONGBLOB',
    integer: 'INT',
    table: ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
  },
  sqlite: { id: 'TEXT', bytes: 'BLOB', integer: 'INTEGER', table: '' },
};

const LIST_INDEX = 'idx_agent_langgraph_checkpoints_list';
const LIST_COLUMNS = 'thread_id, checkpoint_id, checkpoint_ns';

/**
 * LangGraph checkpoints: each checkpoint without its channel values (`parent_checkpoint_id` '' for
 * none), the channel values once per (channel, version) in `agent_langgraph_blobs` (`value_type`
 * '' for a channel that was emptied), and the pending writes of each task. Ids compare by code
 * point on every dialect (`COLLATE "C"`, binary), the order `list` returns. No NULLs.
 */
function checkpoints(dialect: SqlDialect): MigrationDefinition {
  const { id, bytes, integer, table } = TYPES[dialect];
  const key = (name: string, columns: string) =>
    dialect === 'mysql'
      ? `PRIMARY KEY (${columns})`
      : `CONSTRAINT ${name} PRIMARY KEY (${columns})`;
  return {
    name: 'LanggraphCheckpoints1796774400000',
    up: [
      `CREATE TABLE IF NOT EXISTS agent_langgraph_checkpoints (
        thread_id ${id} NOT NULL,
        checkpoint_ns ${id} NOT NULL,
        checkpoint_id ${id} NOT NULL,
        parent_checkpoint_id ${id} NOT NULL,
        checkpoint_type ${id} NOT NULL,
        checkpoint ${bytes} NOT NULL,
        metadata_type ${id} NOT NULL,
        metadata ${bytes} NOT NULL,
        ${key('pk_agent_langgraph_checkpoints', 'thread_id, checkpoint_ns, checkpoint_id')}${
          dialect === 'mysql' ? `,\n        KEY ${LIST_INDEX} (${LIST_COLUMNS})` : ''
        }
      )${table}`,
      ...(dialect === 'mysql'
        ? []
        : [
            `CREATE INDEX IF NOT EXISTS ${LIST_INDEX} ON agent_langgraph_checkpoints (${LIST_COLUMNS})`,
          ]),
      `CREATE TABLE IF NOT EXISTS agent_langgraph_blobs (
        thread_id ${id} NOT NULL,
        checkpoint_ns ${id} NOT NULL,
        channel ${id} NOT NULL,
        version ${id} NOT NULL,
        value_type ${id} NOT NULL,
        value ${bytes} NOT NULL,
        ${key('pk_agent_langgraph_blobs', 'thread_id, checkpoint_ns, channel, version')}
      )${table}`,
      `CREATE TABLE IF NOT EXISTS agent_langgraph_writes (
        thread_id ${id} NOT NULL,
        checkpoint_ns ${id} NOT NULL,
        checkpoint_id ${id} NOT NULL,
        task_id ${id} NOT NULL,
        idx ${integer} NOT NULL,
        channel ${id} NOT NULL,
        task_path ${bytes} NOT NULL,
        value_type ${id} NOT NULL,
        value ${bytes} NOT NULL,
        ${key('pk_agent_langgraph_writes', 'thread_id, checkpoint_ns, checkpoint_id, task_id, idx')}
      )${table}`,
    ],
    down: [
      'DROP TABLE IF EXISTS agent_langgraph_writes',
      'DROP TABLE IF EXISTS agent_langgraph_blobs',
      ...(dialect === 'mysql' ? [] : [`DROP INDEX IF EXISTS ${LIST_INDEX}`]),
      'DROP TABLE IF EXISTS agent_langgraph_checkpoints',
    ],
  };
}

/** The LangGraph checkpointer's migrations for a dialect, oldest first. */
export function langgraphMigrations(dialect: SqlDialect): readonly MigrationDefinition[] {
  return [checkpoints(dialect)];
}
