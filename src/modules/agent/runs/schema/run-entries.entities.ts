import type { EntitySchemaColumnOptions, EntitySchemaOptions } from 'typeorm';
import type { SqlDialect } from '../../../connections/sql/sql-target.js';

const KEY_COLUMN: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text', collation: 'C' },
  mysql: { type: 'varbinary', length: 255 },
  sqlite: { type: 'text' },
};

const VALUE_COLUMN: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text' },
  mysql: { type: 'longtext', charset: 'utf8mb4', collation: 'utf8mb4_bin' },
  sqlite: { type: 'text' },
};

/** The run entries table (run cache and run records) as TypeORM entity schema options. */
export function runEntryEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  return [
    {
      name: 'AgentRunEntry',
      tableName: 'agent_run_entries',
      columns: {
        runId: {
          ...KEY_COLUMN[dialect],
          name: 'run_id',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_run_entries',
        },
        entryKey: {
          ...KEY_COLUMN[dialect],
          name: 'entry_key',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_run_entries',
        },
        value: { ...VALUE_COLUMN[dialect], name: 'value' },
        expiresAt: { type: dialect === 'sqlite' ? 'integer' : 'bigint', name: 'expires_at' },
      },
      indices: [{ name: 'idx_agent_run_entries_expires_at', columns: ['expiresAt'] }],
    },
  ];
}
