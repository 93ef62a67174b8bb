import type { DataSource } from 'typeorm';
import { createSqlExecutor } from '../../connections/sql/sql-executor.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { LongtermStoreSettings } from './base-longterm.store.js';
import { SqlExecutorLongtermStore } from './sql-executor.longterm.store.js';
import { TOMBSTONE, toColumns } from './sql-row-format.js';

const COLUMNS = 'entity_id, key, value, seq, updated_at, expires_at';
const LIVE = `value <> '${TOMBSTONE}' AND expires_at > $`;

const SQL = {
  /** The seq guard in the upsert's WHERE: rows it skips are not returned, so RETURNING lists what applied. */
  write: `INSERT INTO agent_longterm_records AS r (${COLUMNS})
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
    ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
      updated_at = excluded.updated_at, expires_at = excluded.expires_at
    WHERE excluded.seq >= r.seq OR r.expires_at <= $7
    RETURNING entity_id, key`,
  one: `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = $1 AND key = $2 AND ${LIVE}3`,
  range: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = $1 AND key >= $2 AND key < $3 AND ${LIVE}4 ORDER BY key LIMIT $5`,
  rangeToEnd: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = $1 AND key >= $2 AND ${LIVE}3 ORDER BY key LIMIT $4`,
  removeEntity: 'DELETE FROM agent_longterm_records WHERE entity_id = $1',
  removeExpired: `DELETE FROM agent_longterm_records WHERE ctid IN (
    SELECT ctid FROM agent_longterm_records WHERE expires_at <= $1 LIMIT $2) RETURNING 1`,
} as const;

/**
 * Long-term store on PostgreSQL. `saveMany` is one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO
 * UPDATE … WHERE <seq guard> RETURNING` statement; search is a range scan on the
 * `(entity_id, key)` primary key in `COLLATE "C"` (code-point) order.
 */
export class PostgresLongtermStore extends SqlExecutorLongtermStore {
  constructor(dataSource: DataSource, settings?: LongtermStoreSettings) {
    super(createSqlExecutor(dataSource, 'postgres'), SQL, settings);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const columns = rows.map(toColumns);
    const applied = await this.sql<{ entity_id: string; key: string }>('lt_write', SQL.write, [
      ...[0, 1, 2, 3, 4, 5].map((c) => columns.map((row) => row[c])),
      now,
    ]);
    // A batch holds no (entity, key) twice, so as many rows back as sent means all applied.
    if (applied.length === rows.length) return rows.map(() => true);
    // U+0000 is in no id or key: it separates them safely.
    const done = new Set(applied.map((row) => `${row.entity_id}\u0000${row.key}`));
    return rows.map((row) => done.has(`${row.entityId}\u0000${row.key}`));
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    return (await this.sql('lt_remove_expired', SQL.removeExpired, [now, limit])).length;
  }
}
