import type { Statement } from 'better-sqlite3';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import type { DataSource } from 'typeorm';
import { SqliteGroupCommit } from '../../connections/sql/sqlite-group-commit.js';
import { type SqliteHandle, sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import { PAGE_CHUNK, storedBytes, type StoredPage } from './page-reading.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

/**
 * SQLite backend, on the one better-sqlite3 connection TypeORM holds for the file. Every write is a
 * synchronous `BEGIN IMMEDIATE` transaction: it takes SQLite's write lock up front (other processes
 * wait up to the busy timeout) and never awaits inside, so no other work of this process can
 * interleave with it. Appends and clears go through the connection's group commit with its other
 * writes (a savepoint each, one commit for a round's; see `SqliteGroupCommit`). Statements are
 * prepared once.
 */
export class SqliteChatMemoryStore extends BaseChatMemoryStore implements BackedChatMemoryStore {
  protected readonly system = 'sqlite' as const;
  readonly backing: ChatStoreBacking;
  private readonly db: SqliteHandle;
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly writes: SqliteGroupCommit;
  /** One append's statements; run in a transaction (a savepoint of its group). */
  private readonly appendStatements: (
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ) => AppendOutcome;
  private readonly clearStatements: (conversationId: string) => void;
  private readonly pageTransaction: (
    conversationId: string,
    end: number,
    count: number,
    maxBytes: number,
  ) => StoredPage;

  /**
   * @param dataSource an initialized DataSource whose database has the chat tables
   * @param options `migrationsRun`: whether the package migrates this database (default true)
   */
  constructor(dataSource: DataSource, options: { migrationsRun?: boolean } = {}) {
    super();
    this.backing = { kind: 'sql', dataSource, migrationsRun: options.migrationsRun ?? true };
    this.db = sqliteHandle(dataSource);
    const statements = prepareStatements(this.db);
    this.statements = statements;
    this.writes = SqliteGroupCommit.of(this.db);
    this.appendStatements = (conversationId, messages, expectedVersion) => {
      const version = (statements.version.get(conversationId) as number | undefined) ?? 0;
      const fresh = messages.filter(
        (message) => statements.exists.get(conversationId, message.id) === undefined,
      );
      if (fresh.length === 0) return { conflict: false, version };
      if (expectedVersion !== undefined && expectedVersion !== version)
        return { conflict: true, version };
      fresh.forEach((message, index) =>
        statements.insert.run(
          conversationId,
          version + index + 1,
          message.id,
          message.role,
          message.json,
        ),
      );
      statements.setVersion.run(conversationId, version + fresh.length);
      return { conflict: false, version: version + fresh.length };
    };
    this.pageTransaction = this.db.transaction(
      (conversationId: string, end: number, count: number, maxBytes: number) => {
        const version = (statements.version.get(conversationId) as number | undefined) ?? 0;
        let from = Math.min(end, version);
        const newestFirst: string[] = [];
        let used = 0;
        // Whole chunks (`all` costs about half of stepping row by row), newest first.
        while (from > 0 && newestFirst.length < count && used < maxBytes) {
          const size = Math.min(PAGE_CHUNK, count - newestFirst.length, from);
          for (const body of statements.newestInRange.all(
            conversationId,
            from - size,
            from,
          ) as string[]) {
            newestFirst.push(body);
            used += storedBytes(body);
          }
          from -= size;
        }
        return { version, newestFirst };
      },
    );
    this.clearStatements = (conversationId: string) => {
      statements.deleteMessages.run(conversationId);
      statements.deleteConversation.run(conversationId);
    };
  }

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    return this.writes.run(() => this.appendStatements(conversationId, messages, expectedVersion));
  }

  protected async readAll(conversationId: string): Promise<string[]> {
    return this.statements.all.all(conversationId) as string[];
  }

  protected async readTail(conversationId: string, n: number): Promise<string[]> {
    return (this.statements.tail.all(conversationId, n) as string[]).reverse();
  }

  protected async readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return this.statements.range.all(conversationId, fromVersion, limit) as string[];
  }

  /**
   * The version and the newest messages in one read transaction (one snapshot, however many
   * processes write the file), read in chunks of up to `PAGE_CHUNK` until the page is full or past
   * its budget.
   */
  protected override async readPage(
    conversationId: string,
    end: number | undefined,
    count: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    return this.pageTransaction(conversationId, end ?? Number.MAX_SAFE_INTEGER, count, maxBytes);
  }

  protected async readVersion(conversationId: string): Promise<number> {
    return (this.statements.version.get(conversationId) as number | undefined) ?? 0;
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    // Through the group commit too, so it keeps its place among the writes that go through it.
    await this.writes.run(() => this.clearStatements(conversationId));
  }
}

function prepareStatements(db: SqliteHandle) {
  const pluck = (sql: string): Statement => db.prepare(sql).pluck();
  return {
    version: pluck('SELECT version FROM agent_chat_conversations WHERE conversation_id = ?'),
    exists: pluck('SELECT 1 FROM agent_chat_messages WHERE conversation_id = ? AND message_id = ?'),
    insert: db.prepare(
      'INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES (?, ?, ?, ?, ?)',
    ),
    setVersion: db.prepare(
      `INSERT INTO agent_chat_conversations (conversation_id, version) VALUES (?, ?)
       ON CONFLICT (conversation_id) DO UPDATE SET version = excluded.version`,
    ),
    all: pluck('SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq'),
    tail: pluck(
      'SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?',
    ),
    range: pluck(
      'SELECT body FROM agent_chat_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    newestInRange: pluck(
      'SELECT body FROM agent_chat_messages WHERE conversation_id = ? AND seq > ? AND seq <= ? ORDER BY seq DESC',
    ),
    deleteMessages: db.prepare('DELETE FROM agent_chat_messages WHERE conversation_id = ?'),
    deleteConversation: db.prepare(
      'DELETE FROM agent_chat_conversations WHERE conversation_id = ?',
    ),
  };
}
