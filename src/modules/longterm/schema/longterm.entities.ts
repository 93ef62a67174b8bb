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

/** The long-term tables (records and seq counters) as TypeORM entity schema options. */
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
        ...(dialect === 'postgres'
          ? { searchVector: { type: 'tsvector', name: 'search_vector', nullable: true } }
          : dialect === 'mysql'
            ? // NOT NULL: TypeORM misreads the NULL default of a nullable LONGTEXT on MariaDB.
              { searchText: { ...VALUE[dialect], name: 'search_text', default: '' } }
            : { searchText: { ...VALUE[dialect], name: 'search_text', nullable: true } }),
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
        // The text index (GIN, FULLTEXT, or FTS5's own table) is the migrations' alone.
        ...(dialect === 'sqlite'
          ? []
          : [
              {
                name: 'idx_agent_longterm_records_search',
                columns: [dialect === 'postgres' ? 'searchVector' : 'searchText'],
                synchronize: false,
              },
            ]),
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
  ];
}
