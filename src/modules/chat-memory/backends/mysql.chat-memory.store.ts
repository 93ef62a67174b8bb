import type { DataSource } from 'typeorm';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { MysqlPacketLimit } from '../../connections/sql/mysql-packet-limit.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

const SQL = {
  append: 'CALL agent_chat_append(?, ?, ?)',
  all: 'SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq',
  tail: 'SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?',
  range:
    'SELECT body FROM agent_chat_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  version: 'SELECT version FROM agent_chat_conversations WHERE conversation_id = ?',
  clear: 'CALL agent_chat_clear(?)',
} as const;

/**
 * MariaDB/MySQL backend. `add` is one `CALL agent_chat_append(...)` carrying the whole batch (one
 * round trip, one commit); reads use the `(conversation_id, seq)` primary key. Ids are
 * `VARBINARY`, compared byte by byte. Statements are prepared once per pooled connection.
 */
export class MysqlChatMemoryStore extends BaseChatMemoryStore implements BackedChatMemoryStore {
  protected readonly system = 'mysql' as const;
  readonly backing: ChatStoreBacking;
  private readonly sql: SqlExecutor;
  private readonly packet: MysqlPacketLimit;

  /**
   * @param dataSource an initialized DataSource whose database has the chat tables
   * @param options `migrationsRun`: whether the package migrates this database (default true)
   */
  constructor(dataSource: DataSource, options: { migrationsRun?: boolean } = {}) {
    super();
    this.backing = { kind: 'sql', dataSource, migrationsRun: options.migrationsRun ?? true };
    this.sql = createSqlExecutor(dataSource, 'mysql');
    this.packet = new MysqlPacketLimit(dataSource);
  }

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    const batch = encodeBatch(messages);
    // A prepared statement sends the batch as raw bytes: its length is what the packet holds.
    await this.packet.assertFits('messages', batch.length + Buffer.byteLength(conversationId));
    const [resultSet] = (await this.sql('chat_append', SQL.append, [
      conversationId,
      batch,
      expectedVersion ?? null,
    ])) as unknown as [Array<{ conflict: number | string; version: number | string }>];
    const row = resultSet[0]!;
    return { conflict: Number(row.conflict) === 1, version: Number(row.version) };
  }

  protected async readAll(conversationId: string): Promise<string[]> {
    return bodies(await this.sql('chat_all', SQL.all, [conversationId]));
  }

  protected async readTail(conversationId: string, n: number): Promise<string[]> {
    return bodies(await this.sql('chat_tail', SQL.tail, [conversationId, n])).reverse();
  }

  protected async readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return bodies(await this.sql('chat_range', SQL.range, [conversationId, fromVersion, limit]));
  }

  protected async readVersion(conversationId: string): Promise<number> {
    const [row] = await this.sql<{ version: number | string }>('chat_version', SQL.version, [
      conversationId,
    ]);
    return row ? Number(row.version) : 0;
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    await this.sql('chat_clear', SQL.clear, [conversationId]);
  }
}

function bodies(rows: Array<{ body: string }>): string[] {
  return rows.map((row) => row.body);
}

/** Width of the decimal byte length that precedes each field of an encoded batch. */
const LENGTH_DIGITS = 10;

/**
 * Encodes a batch for `agent_chat_append`: for each message its id, role and JSON, each as a
 * 10-digit decimal byte length followed by the UTF-8 bytes. The procedure walks it by byte offset.
 */
function encodeBatch(messages: PreparedMessage[]): Buffer {
  const parts: Buffer[] = [];
  for (const message of messages) {
    for (const field of [message.id, message.role, message.json]) {
      const bytes = Buffer.from(field, 'utf8');
      parts.push(Buffer.from(String(bytes.length).padStart(LENGTH_DIGITS, '0'), 'latin1'), bytes);
    }
  }
  return Buffer.concat(parts);
}
