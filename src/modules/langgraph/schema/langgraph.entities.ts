import type { EntitySchemaColumnOptions, EntitySchemaOptions } from 'typeorm';
import type { SqlDialect } from '../../connections/sql/sql-target.js';

const ID: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text', collation: 'C' },
  mysql: { type: 'varbinary', length: 255 },
  sqlite: { type: 'text' },
};
const BYTES: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'bytea' },
  mysql: { type: 'longblob' },
  sqlite: { type: 'blob' },
};

function columns(
  dialect: SqlDialect,
  primaryKey: string,
  keys: string[],
  others: Record<string, 'id' | 'bytes' | 'integer'>,
): Record<string, EntitySchemaColumnOptions> {
  const result: Record<string, EntitySchemaColumnOptions> = {};
  const type = (kind: 'id' | 'bytes' | 'integer'): EntitySchemaColumnOptions =>
    kind === 'id'
      ? ID[dialect]
      : kind === 'bytes'
        ? BYTES[dialect]
        : { type: dialect === 'mysql' ? 'int' : 'integer' };
  for (const name of keys)
    result[camel(name)] = {
      ...(name === 'idx' ? type('integer') : type('id')),
      name,
      primary: true,
      primaryKeyConstraintName: primaryKey,
    };
  for (const [name, kind] of Object.entries(others)) result[camel(name)] = { ...type(kind), name };
  return result;
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The LangGraph checkpointer's tables as TypeORM entity schema options. */
export function langgraphEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  return [
    {
      name: 'AgentLanggraphCheckpoint',
      tableName: 'agent_langgraph_checkpoints',
      columns: columns(
        dialect,
        'pk_agent_langgraph_checkpoints',
        ['thread_id', 'checkpoint_ns', 'checkpoint_id'],
        {
          parent_checkpoint_id: 'id',
          checkpoint_type: 'id',
          checkpoint: 'bytes',
          metadata_type: 'id',
          metadata: 'bytes',
        },
      ),
      indices: [
        {
          name: 'idx_agent_langgraph_checkpoints_list',
          columns: ['threadId', 'checkpointId', 'checkpointNs'],
        },
      ],
    },
    {
      name: 'AgentLanggraphBlob',
      tableName: 'agent_langgraph_blobs',
      columns: columns(
        dialect,
        'pk_agent_langgraph_blobs',
        ['thread_id', 'checkpoint_ns', 'channel', 'version'],
        { value_type: 'id', value: 'bytes' },
      ),
    },
    {
      name: 'AgentLanggraphWrite',
      tableName: 'agent_langgraph_writes',
      columns: columns(
        dialect,
        'pk_agent_langgraph_writes',
        ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'task_id', 'idx'],
        { channel: 'id', task_path: 'bytes', value_type: 'id', value: 'bytes' },
      ),
    },
  ];
}
