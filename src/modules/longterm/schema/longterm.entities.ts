import type { EntitySchemaColumnOptions, EntitySchemaOptions } from 'typeorm';
import type { SqlDialect } from '../../connections/sql/sql-target.js';

const ID: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text', collation: 'C' },
  mysql: { type: 'varbinary', length: 255 },
  sqlite: { type: 'text' },
};
const KEY: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text', collation: 'C' },
  mysql: { type: 'varbinary', length: 512 },
  sqlite: { type: 'text' },
};
const VALUE: Record<SqlDialect, EntitySchemaColumnOptions> = {
  postgres: { type: 'text' },
  mysql: { type: 'longtext', charset: 'utf8mb4', collation: 'utf8mb4_bin' },
  sqlite: { type: 'text' },
};

/**
 * The long-term tables (records, seq counters and, on MariaDB, the text index's terms) as TypeORM
 * entity schema options.
 */
export function longtermEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  const integer: EntitySchemaColumnOptions = { type: dialect === 'sqlite' ? 'integer' : 'bigint' };
  return [
    {
      name: 'AgentLongtermRecord',
      tableName: 'agent_longterm_records',
      columns: {
        entityId: {
          ...ID[dialect],
          name: 'entity_id',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_longterm_records',
        },
        key: {
          ...KEY[dialect],
          name: 'key',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_longterm_records',
        },
        value: { ...VALUE[dialect], name: 'value' },
        seq: { ...integer, name: 'seq' },
        updatedAt: { ...integer, name: 'updated_at' },
        expiresAt: { ...integer, name: 'expires_at' },
        // MariaDB's text index is its own table (below).
        ...(dialect === 'postgres'
          ? { searchVector: { type: 'tsvector', name: 'search_vector', nullable: true } }
          : dialect === 'sqlite'
            ? { searchText: { ...VALUE[dialect], name: 'search_text', nullable: true } }
            : {}),
        ...(dialect === 'mysql'
          ? {
              embedding: { type: 'longblob', name: 'embedding', default: '' },
              embeddingModel: {
                type: 'varbinary',
                length: 255,
                name: 'embedding_model',
                default: '',
              },
            }
          : {
              embedding: {
                type: dialect === 'postgres' ? 'bytea' : 'blob',
                name: 'embedding',
                nullable: true,
              },
              embeddingModel: { ...ID[dialect], name: 'embedding_model', nullable: true },
            }),
      },
      indices: [
        { name: 'idx_agent_longterm_records_expires_at', columns: ['expiresAt'] },
        // The GIN index is the migrations' alone (as is FTS5's own table on SQLite).
        ...(dialect === 'postgres'
          ? [
              {
                name: 'idx_agent_longterm_records_search',
                columns: ['searchVector'],
                synchronize: false,
              },
            ]
          : []),
      ],
    },
    {
      name: 'AgentLongtermCounter',
      tableName: 'agent_longterm_counters',
      columns: {
        entityId: {
          ...ID[dialect],
          name: 'entity_id',
          primary: true,
          primaryKeyConstraintName: 'pk_agent_longterm_counters',
        },
        value: { ...integer, name: 'value' },
      },
    },
    ...(dialect === 'mysql' ? [termsEntitySchema()] : []),
  ];
}

/** MariaDB's text index: one row per (entity, term, record), written with the record. */
function termsEntitySchema(): EntitySchemaOptions<unknown> {
  const primary = { primary: true, primaryKeyConstraintName: 'pk_agent_longterm_terms' };
  return {
    name: 'AgentLongtermTerm',
    tableName: 'agent_longterm_terms',
    columns: {
      entityId: { ...ID.mysql, ...primary, name: 'entity_id' },
      key: { ...KEY.mysql, ...primary, name: 'key' },
      term: { type: 'varbinary', length: 256, ...primary, name: 'term' },
      tf: { type: 'int', name: 'tf' },
      length: { type: 'int', name: 'length' },
      expiresAt: { type: 'bigint', name: 'expires_at' },
    },
    indices: [
      {
        name: 'idx_agent_longterm_terms_search',
        columns: ['entityId', 'term', 'tf', 'length', 'expiresAt'],
      },
    ],
  };
}
