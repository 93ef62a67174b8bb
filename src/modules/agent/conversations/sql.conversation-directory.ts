import type { DataSource } from 'typeorm';
import type { SqlConnection } from '../../connections/connection-registry.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { KeyedWriteBatcher } from '../../../common/keyed-write-batcher.js';
import { SqliteGroupCommit } from '../../connections/sql/sqlite-group-commit.js';
import { sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import { SqliteStatements } from '../../connections/sql/sqlite-statements.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import {
  type ConversationTurnText,
  checkConversationPatch,
  mergeMetadata,
} from './conversation-details.js';
import {
  type ConversationDirectory,
  type ConversationListPage,
  type ConversationListing,
  type ConversationPage,
  type ConversationPatch,
  conversationNamespace,
  positionOf,
} from './conversation-directory.interface.js';
import {
  type DirectorySql,
  type TouchRow,
  DIRECTORY_SQL,
} from './sql.conversation-directory.statements.js';

interface Row {
  conversation_id: unknown;
  last_active_at: unknown;
  title: unknown;
  preview: unknown;
  metadata: unknown;
}

/**
 * Conversation directory on the package's SQL table `agent_conversations` (PostgreSQL,
 * MariaDB/MySQL, SQLite): one row per conversation; a page is a keyset range of the index
 * `(namespace, last_active_at, conversation_id)`, read backwards, filtered in the database by
 * metadata (a JSON text column) when asked. Ids compare by byte (code point). A title is stored as
 * `=title` once decided, `=` once cleared (a later turn does not set the default title again), `''`
 * before.
 */
export class SqlConversationDirectory implements ConversationDirectory {
  private readonly sql: DirectorySql;
  private readonly execute: SqlExecutor;
  private readonly dataSource: DataSource;
  /** SQLite's prepared statements and writes (undefined on the server dialects). */
  private readonly sqlite?: {
    statements: SqliteStatements;
    /** Every write, committed in groups with the connection's other writes (in their order). */
    writes: SqliteGroupCommit;
  };
  /** The server dialects' touches, written in batches while one is in flight. */
  private readonly touches?: KeyedWriteBatcher<TouchRow, void>;

  constructor({ dataSource, dialect }: SqlConnection) {
    this.sql = DIRECTORY_SQL[dialect as SqlDialect];
    this.dataSource = dataSource as DataSource;
    this.execute = createSqlExecutor(this.dataSource, dialect);
    if (dialect === 'sqlite') {
      const handle = sqliteHandle(this.dataSource);
      this.sqlite = {
        statements: new SqliteStatements(handle),
        writes: SqliteGroupCommit.of(handle),
      };
    } else
      this.touches = new KeyedWriteBatcher({
        key: (row) => row.conversationId,
        write: (rows) => this.writeTouches(rows),
      });
  }

  async touch(conversationId: string, at: number, turn: ConversationTurnText = {}): Promise<void> {
    const row: TouchRow = {
      conversationId,
      namespace: conversationNamespace(conversationId),
      at,
      title: turn.title ? `=${turn.title}` : '',
      preview: turn.preview ?? '',
    };
    if (this.touches) return this.touches.submit(row);
    const { writes, statements } = this.sqlite!;
    await writes.run(() => statements.get(this.sql.touch).run(...touchParams(row)));
  }

  /**
   * One touch as the prepared single-row statement; several, of distinct conversations, as one
   * multi-row statement (one commit): while a touch is in flight, the ones that come meanwhile wait
   * and go together.
   */
  private async writeTouches(rows: readonly TouchRow[]): Promise<void[]> {
    if (rows.length === 1)
      await this.execute('conversation_touch', this.sql.touch, touchParams(rows[0]!));
    else {
      const many = this.sql.touchMany!;
      // One text for every count on PostgreSQL (the rows as arrays), so it is prepared once.
      await this.execute('conversation_touch_many', many.sql(rows.length), many.params(rows));
    }
    return rows.map(() => undefined);
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListPage> {
    const after = page.after;
    const filter =
      page.metadata && Object.keys(page.metadata).length > 0 ? page.metadata : undefined;
    const filterParams = filter ? this.sql.filterParams(filter) : [];
    const sql = this.sql.page(after !== undefined, filter ? Object.keys(filter).length : 0);
    const params = [
      namespace,
      ...(after ? [after.lastActiveAt, after.lastActiveAt, after.conversationId] : []),
      ...filterParams,
      page.limit + 1,
    ];
    const name = `conversation_${after ? 'next' : 'first'}_${filter ? Object.keys(filter).length : 0}`;
    const rows = this.sqlite
      ? (this.sqlite.statements.get(sql).all(...params) as Row[])
      : await this.execute<Row>(name, sql, params);
    const conversations = rows.slice(0, page.limit).map(toListing);
    if (rows.length > page.limit) return { conversations, next: positionOf(conversations.at(-1)!) };
    if (!filter) return { conversations };
    // The scan stopped at its budget: the next page goes on from the last row it read.
    const endParams = [
      namespace,
      ...(after ? [after.lastActiveAt, after.lastActiveAt, after.conversationId] : []),
    ];
    const endSql = this.sql.scanEnd(after !== undefined);
    const [end] = this.sqlite
      ? (this.sqlite.statements.get(endSql).all(...endParams) as Row[])
      : await this.execute<Row>(
          `conversation_scan_end_${after ? 'next' : 'first'}`,
          endSql,
          endParams,
        );
    return end ? { conversations, next: positionOf(toListing(end)) } : { conversations };
  }

  async update(
    conversationId: string,
    patch: ConversationPatch,
  ): Promise<ConversationListing | undefined> {
    const checked = checkConversationPatch(patch);
    // Read, merge and write under the row's lock, so concurrent changes of keys all stay.
    const apply = (row: Row | undefined): [Row | undefined, unknown[]] => {
      if (!row) return [undefined, []];
      const title = checked.title === undefined ? String(row.title) : `=${checked.title ?? ''}`;
      const current = parseMetadata(row.metadata);
      const metadata = checked.metadata ? mergeMetadata(current, checked.metadata) : current;
      const stored = Object.keys(metadata).length > 0 ? JSON.stringify(metadata) : '';
      return [{ ...row, title, metadata: stored }, [title, stored, conversationId]];
    };
    if (this.sqlite) {
      const { writes, statements } = this.sqlite;
      const row = await writes.run(() => {
        const [row, params] = apply(statements.get(this.sql.read).get(conversationId) as Row);
        if (row) statements.get(this.sql.update).run(...params);
        return row;
      });
      return row && toListing(row);
    }
    const row = await this.dataSource.transaction(async (manager) => {
      const [found] = (await manager.query(this.sql.read, [conversationId])) as Row[];
      const [updated, params] = apply(found);
      if (updated) await manager.query(this.sql.update, params);
      return updated;
    });
    return row && toListing(row);
  }

  async remove(conversationId: string): Promise<void> {
    if (this.sqlite) {
      const { writes, statements } = this.sqlite;
      await writes.run(() => statements.get(this.sql.remove).run(conversationId));
    } else await this.execute('conversation_remove', this.sql.remove, [conversationId]);
  }
}

function touchParams(row: TouchRow): unknown[] {
  return [row.conversationId, row.namespace, row.at, row.title, row.preview];
}

/** A row as a listing. Binary columns (MariaDB) come back as buffers, bigints as strings. */
function toListing(row: Row): ConversationListing {
  // `=title` once decided (`=` alone: cleared), `''` before.
  const title = String(row.title ?? '').slice(1);
  const preview = String(row.preview ?? '');
  const metadata = parseMetadata(row.metadata);
  return {
    conversationId: String(row.conversation_id),
    lastActiveAt: Number(row.last_active_at),
    ...(title ? { title } : {}),
    ...(preview ? { preview } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

function parseMetadata(stored: unknown): Record<string, string> {
  if (stored === null || stored === undefined || stored === '') return {};
  return JSON.parse(String(stored)) as Record<string, string>;
}
