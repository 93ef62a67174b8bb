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

/**
 * The agent's tables as TypeORM entity schema options: run entries (run cache and run records) and
 * the conversation directory.
 */
export function runEntryEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  const time: EntitySchemaColumnOptions = { type: dialect === 'sqlite' ? 'integer' : 'bigint' };
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
        expiresAt: { ...time, name: 'expires_at' },
      },
      indices: [{ name: 'idx_agent_run_entries_expires_at', columns: ['expiresAt'] }],
    },
    {
      name: 'AgentConversation',
      tableName: 'agent_conversations',
      columns: {
        conversationId: {
          ...KEY_COLUMN[dialect],
          name: 'conversation_id',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_conversations',
        },
        namespace: { ...KEY_COLUMN[dialect], name: 'namespace' },
        lastActiveAt: { ...time, name: 'last_active_at' },
        title: { ...VALUE_COLUMN[dialect], name: 'title', default: '' },
        preview: { ...VALUE_COLUMN[dialect], name: 'preview', default: '' },
        metadata: { ...VALUE_COLUMN[dialect], name: 'metadata', default: '' },
      },
      indices: [
        {
          name: 'idx_agent_conversations_recent',
          columns: ['namespace', 'lastActiveAt', 'conversationId'],
        },
      ],
    },
  ];
}
