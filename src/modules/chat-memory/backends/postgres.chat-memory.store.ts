import type { DataSource } from 'typeorm';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import {
  type AppendOutcome,
  type AppendRequest,
  BaseChatMemoryStore,
} from './base-chat-memory.store.js';
import { pageOf, type StoredPage } from './page-reading.js';

const SQL = {
  append:
    'SELECT out_conflict, out_version FROM agent_chat_append($1::text, $2::text[], $3::text[], $4::text[], $5::bigint)',
  appendGroup: `SELECT out_conflicts, out_versions FROM agent_chat_append_group($1::text,
    $2::int[], $3::bigint[], $4::text[], $5::text[], $6::text[])`,
  all: 'SELECT body FROM agent_chat_messages WHERE conversation_id = $1 ORDER BY seq',
  // Positions are contiguous (1 … version), so a page is a key range: no LIMIT to plan.
  range: `SELECT body FROM agent_chat_messages WHERE conversation_id = $1
    AND seq > $2::bigint AND seq <= $2::bigint + $3::bigint ORDER BY seq`,
  version:
    'SELECT coalesce(max(seq), 0) AS version FROM agent_chat_messages WHERE conversation_id = $1',
  clear: 'SELECT agent_chat_clear($1::text)',
  // The version and the newest messages up to a position, summed newest first and cut once the
  // bytes before a message pass the budget: one statement, one snapshot. An empty page is one row
  // with the version and no body. Positions are contiguous: the page is a key range.
  page: `WITH v AS (SELECT coalesce(max(seq), 0) AS version FROM agent_chat_messages
      WHERE conversation_id = $1),
    e AS (SELECT version, least(version, $2::bigint) AS last FROM v)
    SELECT e.version, summed.body FROM e LEFT JOIN (
      SELECT body, bytes, sum(bytes) OVER (ORDER BY seq DESC) AS total FROM (
        SELECT m.seq, m.body, octet_length(m.body) AS bytes FROM agent_chat_messages m, e
        WHERE m.conversation_id = $1 AND m.seq > e.last - $3::bigint AND m.seq <= e.last
      ) newest
    ) summed ON summed.total - summed.bytes < $4::bigint
    ORDER BY summed.total`,
} as const;

/**
 * Up to this `n`, `tail(n)` runs a statement of its own with the limit written in: PostgreSQL
 * re-plans a prepared `LIMIT $n` on every call (its generic plan looks costlier than the custom
 * ones), which costs more than the read itself. Larger `n` share one parameterized statement.
 */
const MAX_INLINE_TAIL = 100;

function tailSql(limit: string): string {
  return `SELECT body FROM agent_chat_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT ${limit}`;
}

/** PostgreSQL's "undefined function": a database not migrated to `agent_chat_append_group` yet. */
const UNDEFINED_FUNCTION = '42883';

/**
 * PostgreSQL backend. `add` is one call of the `agent_chat_append` function (one round trip, one
 * commit); concurrent `add`s to one conversation in this process go as one call of
 * `agent_chat_append_group` (see `AppendCoalescer`); reads use the `(conversation_id, seq)` primary key, so `tail`, `range` and `version`
 * read only what they return. Statements are hand-written and prepared once per pooled connection,
 * so the store also works on a user's DataSource that does not know the package's entities.
 */
export class PostgresChatMemoryStore extends BaseChatMemoryStore implements BackedChatMemoryStore {
  protected readonly system = 'postgresql' as const;
  readonly backing: ChatStoreBacking;
  private readonly sql: SqlExecutor;
  /** False once the database turned out to lack `agent_chat_append_group` (not migrated). */
  private groups = true;

  /**
   * @param dataSource an initialized DataSource whose database has the chat tables
   * @param options `migrationsRun`: whether the package migrates this database (default true)
   */
  constructor(dataSource: DataSource, options: { migrationsRun?: boolean } = {}) {
    super();
    this.backing = { kind: 'sql', dataSource, migrationsRun: options.migrationsRun ?? true };
    this.sql = createSqlExecutor(dataSource, 'postgres');
  }

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    const [row] = await this.sql<{ out_conflict: boolean; out_version: string }>(
      'chat_append',
      SQL.append,
      [
        conversationId,
        messages.map((message) => message.id),
        messages.map((message) => message.role),
        messages.map((message) => message.json),
        expectedVersion ?? null,
      ],
    );
    return { conflict: row!.out_conflict, version: Number(row!.out_version) };
  }

  protected override async appendGroup(
    conversationId: string,
    requests: AppendRequest[],
  ): Promise<AppendOutcome[]> {
    if (!this.groups) throw new Error('agent_chat_append_group is not installed');
    const messages = requests.flatMap((request) => request.messages);
    const rows = await this.sql<{ out_conflicts: boolean[]; out_versions: string[] }>(
      'chat_append_group',
      SQL.appendGroup,
      [
        conversationId,
        requests.map((request) => request.messages.length),
        requests.map((request) => request.expectedVersion ?? null),
        messages.map((message) => message.id),
        messages.map((message) => message.role),
        messages.map((message) => message.json),
      ],
    ).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === UNDEFINED_FUNCTION) this.groups = false;
      throw error;
    });
    const [{ out_conflicts: conflicts, out_versions: versions }] = rows as [(typeof rows)[number]];
    return conflicts.map((conflict, i) => ({ conflict, version: Number(versions[i]) }));
  }

  protected async readAll(conversationId: string): Promise<string[]> {
    return bodies(await this.sql('chat_all', SQL.all, [conversationId]));
  }

  protected async readTail(conversationId: string, n: number): Promise<string[]> {
    const newestFirst =
      n <= MAX_INLINE_TAIL
        ? await this.sql<{ body: string }>(`chat_tail_${n}`, tailSql(String(n)), [conversationId])
        : await this.sql<{ body: string }>('chat_tail', tailSql('$2'), [conversationId, n]);
    return bodies(newestFirst).reverse();
  }

  protected async readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return bodies(await this.sql('chat_range', SQL.range, [conversationId, fromVersion, limit]));
  }

  protected override async readPage(
    conversationId: string,
    end: number | undefined,
    count: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    const rows = await this.sql<{ version: string; body: string | null }>('chat_page', SQL.page, [
      conversationId,
      end ?? Number.MAX_SAFE_INTEGER,
      count,
      maxBytes,
    ]);
    return pageOf(rows);
  }

  protected async readVersion(conversationId: string): Promise<number> {
    const [row] = await this.sql<{ version: string }>('chat_version', SQL.version, [
      conversationId,
    ]);
    return Number(row!.version);
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    await this.sql('chat_clear', SQL.clear, [conversationId]);
  }
}

function bodies(rows: Array<{ body: string }>): string[] {
  return rows.map((row) => row.body);
}
