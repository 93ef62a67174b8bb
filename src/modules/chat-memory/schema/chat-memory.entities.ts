import type { EntitySchemaColumnOptions, EntitySchemaOptions } from 'typeorm';
import type { SqlDialect } from '../../connections/sql/sql-target.js';

/** A stored conversation (MariaDB/MySQL and SQLite): its id and version (count of its messages). */
export interface ChatConversationRow {
  conversationId: string;
  version: string | number;
}

/** A stored message: its position (`seq`, 1-based) and its JSON (`body`, id included). */
export interface ChatMessageRow {
  conversationId: string;
  seq: string | number;
  messageId: string;
  role: string;
  body: string;
}

type ColumnTypes = Record<'id' | 'seq' | 'role' | 'body', EntitySchemaColumnOptions>;

/** Per-dialect column definitions, matching the reviewed migrations exactly. */
const COLUMNS: Record<SqlDialect, ColumnTypes> = {
  postgres: {
    id: { type: 'text', collation: 'C' },
    seq: { type: 'bigint' },
    role: { type: 'varchar', length: 16 },
    body: { type: 'text' },
  },
  mysql: {
    id: { type: 'varbinary', length: 255 },
    seq: { type: 'bigint' },
    role: { type: 'varchar', length: 16, charset: 'ascii', collation: 'ascii_bin' },
    body: { type: 'longtext', charset: 'utf8mb4', collation: 'utf8mb4_bin' },
  },
  sqlite: {
    id: { type: 'text' },
    seq: { type: 'integer' },
    role: { type: 'text' },
    body: { type: 'text' },
  },
};

/**
 * The chat memory tables as TypeORM entity schemas (options; `new EntitySchema(options)` makes one).
 * The migrations are the source of truth; a test checks that TypeORM sees no difference between
 * these entities and the migrated schema. The stores themselves use hand-written SQL.
 */
export function chatMemoryEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  const columns = COLUMNS[dialect];
  const uniqueMessageId = {
    name: 'uq_agent_chat_messages_message_id',
    columns: ['conversationId', 'messageId'],
  };
  const conversations: EntitySchemaOptions<unknown> = {
    name: 'AgentChatConversation',
    tableName: 'agent_chat_conversations',
    columns: {
      conversationId: {
        ...columns.id,
        name: 'conversation_id',
        primary: true,
        primaryKeyConstraintName: 'pk_agent_chat_conversations',
      },
      version: { ...columns.seq, name: 'version', default: 0 },
    },
  };
  const messages: EntitySchemaOptions<unknown> = {
    name: 'AgentChatMessage',
    tableName: 'agent_chat_messages',
    columns: {
      conversationId: {
        ...columns.id,
        name: 'conversation_id',
        primary: true,
        primaryKeyConstraintName: 'pk_agent_chat_messages',
      },
      seq: {
        ...columns.seq,
        name: 'seq',
        primary: true,
        primaryKeyConstraintName: 'pk_agent_chat_messages',
      },
      messageId: { ...columns.id, name: 'message_id' },
      role: { ...columns.role, name: 'role' },
      body: { ...columns.body, name: 'body' },
    },
    ...(dialect === 'postgres'
      ? { uniques: [uniqueMessageId] }
      : { indices: [{ ...uniqueMessageId, unique: true }] }),
  };
  // PostgreSQL derives the version from the messages (see its migration); the others keep a row.
  return dialect === 'postgres' ? [messages] : [conversations, messages];
}
