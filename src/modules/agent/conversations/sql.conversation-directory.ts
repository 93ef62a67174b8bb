import type { DataSource } from 'typeorm';
import type { SqlConnection } from '../../connections/connection-registry.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import { SqliteStatements } from '../../connections/sql/sqlite-statements.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import {
  type ConversationDirectory,
  type ConversationListing,
  type ConversationPage,
  conversationNamespace,
} from './conversation-directory.interface.js';

interface DialectSql {
  /** conversation id, namespace, time */
  touch: string;
  /** namespace, limit */
  first: string;
  /** namespace, time, time, conversation id, limit */
  next: string;
  /** conversation id */
  remove: string;
}

const COLUMNS = 'SELECT conversation_id, last_active_at FROM agent_conversations';
const ORDER = 'ORDER BY last_active_at DESC, conversation_id DESC';

function dialectSql(
  placeholder: (index: number) => string,
  upsert: (time: string) => string,
): DialectSql {
  const p = placeholder;
  return {
    touch: `INSERT INTO agent_conversations (conversation_id, namespace, last_active_at)
      VALUES (${p(1)}, ${p(2)}, ${p(3)}) ${upsert(p(3))}`,
    first: `${COLUMNS} WHERE namespace = ${p(1)} ${ORDER} LIMIT ${p(2)}`,
    next: `${COLUMNS} WHERE namespace = ${p(1)}
      AND (last_active_at < ${p(2)} OR (last_active_at = ${p(3)} AND conversation_id < ${p(4)}))
      ${ORDER} LIMIT ${p(5)}`,
    remove: `DELETE FROM agent_conversations WHERE conversation_id = ${p(1)}`,
  };
}

const SQL: Record<SqlDialect, DialectSql> = {
  postgres: dialectSql(
    (i) => `$${i}`,
    () => `ON CONFLICT (conversation_id) DO UPDATE SET
      last_active_at = GREATEST(agent_conversations.last_active_at, excluded.last_active_at)`,
  ),
  mysql: dialectSql(
    () => '?',
    () =>
      'ON DUPLICATE KEY UPDATE last_active_at = GREATEST(last_active_at, VALUES(last_active_at))',
  ),
  sqlite: dialectSql(
    () => '?',
    () => `ON CONFLICT (conversation_id) DO UPDATE SET
      last_active_at = max(agent_conversations.last_active_at, excluded.last_active_at)`,
  ),
};

interface Row {
  conversation_id: unknown;
  last_active_at: unknown;
}

/**
 * Conversation directory on the package's SQL table `agent_conversations` (PostgreSQL,
 * MariaDB/MySQL, SQLite): one row per conversation; a page is a keyset range of the index
 * `(namespace, last_active_at, conversation_id)`, read backwards. Ids compare by byte (code point).
 */
export class SqlConversationDirectory implements ConversationDirectory {
  private readonly sql: DialectSql;
  private readonly execute: SqlExecutor;
  /** SQLite's prepared statements, on the one handle (undefined on the server dialects). */
  private readonly sqlite?: SqliteStatements;

  constructor({ dataSource, dialect }: SqlConnection) {
    this.sql = SQL[dialect];
    this.execute = createSqlExecutor(dataSource as DataSource, dialect);
    if (dialect === 'sqlite') this.sqlite = new SqliteStatements(sqliteHandle(dataSource));
  }

  async touch(conversationId: string, at: number): Promise<void> {
    const params = [conversationId, conversationNamespace(conversationId), at];
    if (this.sqlite) this.sqlite.get(this.sql.touch).run(...params);
    else await this.execute('conversation_touch', this.sql.touch, params);
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListing[]> {
    const after = page.after;
    const [name, sql, params] = after
      ? [
          'conversation_next',
          this.sql.next,
          [namespace, after.lastActiveAt, after.lastActiveAt, after.conversationId, page.limit],
        ]
      : ['conversation_first', this.sql.first, [namespace, page.limit]];
    const rows = this.sqlite
      ? (this.sqlite.get(sql).all(...params) as Row[])
      : await this.execute<Row>(name, sql, params);
    // Binary columns (MariaDB) come back as buffers, bigints as strings.
    return rows.map((row) => ({
      conversationId: String(row.conversation_id),
      lastActiveAt: Number(row.last_active_at),
    }));
  }

  async remove(conversationId: string): Promise<void> {
    if (this.sqlite) this.sqlite.get(this.sql.remove).run(conversationId);
    else await this.execute('conversation_remove', this.sql.remove, [conversationId]);
  }
}
