import type { Statement } from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { type SqliteHandle, sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';
import { TOMBSTONE, fromColumns, toColumns } from './sql-row-format.js';

const COLUMNS = 'entity_id, key, value, seq, updated_at, expires_at';
const LIVE = `value <> '${TOMBSTONE}' AND expires_at > ?`;

/**
 * Long-term store on SQLite: each batch is one synchronous `BEGIN IMMEDIATE` transaction of
 * `INSERT … ON CONFLICT DO UPDATE … WHERE <seq guard> RETURNING` (a row comes back iff it applied);
 * TEXT keys in the BINARY collation give code-point order for the primary-key range scan.
 */
export class SqliteLongtermStore extends BaseLongtermStore {
  private readonly db: SqliteHandle;
  private readonly statements: Record<
    'write' | 'one' | 'range' | 'rangeToEnd' | 'removeEntity' | 'removeExpired',
    Statement<unknown[]>
  >;
  private readonly writeTransaction: (rows: PreparedRecord[], now: number) => boolean[];

  constructor(dataSource: DataSource, settings?: LongtermStoreSettings) {
    super(settings);
    this.db = sqliteHandle(dataSource);
    this.statements = {
      write: this.db
        .prepare(`INSERT INTO agent_longterm_records (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
          updated_at = excluded.updated_at, expires_at = excluded.expires_at
        WHERE excluded.seq >= agent_longterm_records.seq OR agent_longterm_records.expires_at <= ?
        RETURNING 1`),
      one: this.db.prepare(
        `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = ? AND key = ? AND ${LIVE}`,
      ),
      range: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE entity_id = ? AND key >= ? AND key < ? AND ${LIVE} ORDER BY key LIMIT ?`),
      rangeToEnd: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE entity_id = ? AND key >= ? AND ${LIVE} ORDER BY key LIMIT ?`),
      removeEntity: this.db.prepare('DELETE FROM agent_longterm_records WHERE entity_id = ?'),
      removeExpired: this.db.prepare(`DELETE FROM agent_longterm_records WHERE rowid IN (
        SELECT rowid FROM agent_longterm_records WHERE expires_at <= ? LIMIT ?)`),
    };
    const transaction = this.db.transaction((rows: PreparedRecord[], now: number) =>
      rows.map((row) => this.statements.write.get(...toColumns(row), now) !== undefined),
    );
    this.writeTransaction = (rows, now) => transaction.immediate(rows, now);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    return this.writeTransaction(rows, now);
  }

  protected async readOne(entityId: string, key: string, now: number): Promise<StoredRow | null> {
    const row = this.statements.one.get(entityId, key, now) as Record<string, unknown> | undefined;
    return row ? fromColumns(row) : null;
  }

  protected async readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]> {
    const rows =
      upper === undefined
        ? this.statements.rangeToEnd.all(entityId, lower, now, limit)
        : this.statements.range.all(entityId, lower, upper, now, limit);
    return (rows as Array<Record<string, unknown>>).map(fromColumns);
  }

  protected async removeEntity(entityId: string): Promise<void> {
    this.statements.removeEntity.run(entityId);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    return this.statements.removeExpired.run(now, limit).changes;
  }
}
