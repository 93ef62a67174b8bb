import type { DataSource } from 'typeorm';
import { createSqlExecutor } from '../../connections/sql/sql-executor.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { LongtermStoreSettings } from './base-longterm.store.js';
import { SqlExecutorLongtermStore } from './sql-executor.longterm.store.js';
import { TOMBSTONE, toColumns } from './sql-row-format.js';

const COLUMNS = 'entity_id, `key`, value, seq, updated_at, expires_at';
const GUARD = '(VALUES(seq) >= seq OR expires_at <= ?)';

/**
 * MariaDB evaluates the assignments left to right, each seeing the columns already assigned: the
 * guard reads `seq` and `expires_at`, so `value` and `updated_at` go first, then `seq` (whose guard
 * still sees the old `expires_at`), then `expires_at` (whose guard sees the new `seq`, equal to the
 * incoming one exactly when the row applied). RETURNING gives the row as it ends up: it applied iff
 * it now holds the incoming seq (an equal seq always applies).
 */
function writeSql(rows: number): string {
  return `INSERT INTO agent_longterm_records (${COLUMNS}) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}
    ON DUPLICATE KEY UPDATE
      value = IF(${GUARD}, VALUES(value), value),
      updated_at = IF(${GUARD}, VALUES(updated_at), updated_at),
      seq = IF(${GUARD}, VALUES(seq), seq),
      expires_at = IF(${GUARD}, VALUES(expires_at), expires_at)
    RETURNING entity_id, \`key\`, seq`;
}

const LIVE = `value <> '${TOMBSTONE}' AND expires_at > ?`;
const SQL = {
  one: `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = ? AND \`key\` = ? AND ${LIVE}`,
  range: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = ? AND \`key\` >= ? AND \`key\` < ? AND ${LIVE} ORDER BY \`key\` LIMIT ?`,
  rangeToEnd: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = ? AND \`key\` >= ? AND ${LIVE} ORDER BY \`key\` LIMIT ?`,
  removeEntity: 'DELETE FROM agent_longterm_records WHERE entity_id = ?',
  removeExpired: 'DELETE FROM agent_longterm_records WHERE expires_at <= ? LIMIT ?',
} as const;

/**
 * Long-term store on MariaDB ≥ 10.5 (binary `VARBINARY` keys: byte, i.e. code-point, order; no
 * pad). `saveMany` is one `INSERT … ON DUPLICATE KEY UPDATE` with `IF(guard, …)` per column and
 * MariaDB's `RETURNING` for the per-row verdict. MySQL 8 has no `INSERT … RETURNING`: not supported
 * for this store.
 */
export class MysqlLongtermStore extends SqlExecutorLongtermStore {
  constructor(
    private readonly dataSource: DataSource,
    settings?: LongtermStoreSettings,
  ) {
    super(createSqlExecutor(dataSource, 'mysql'), SQL, settings);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const params = rows.flatMap(toColumns);
    // The batch size varies, so the statement goes through TypeORM rather than a cached prepare.
    const returned = (await this.dataSource.query(writeSql(rows.length), [
      ...params,
      now,
      now,
      now,
      now,
    ])) as Array<Record<string, unknown>>;
    const finalSeq = new Map(
      returned.map((row) => [
        JSON.stringify([text(row.entity_id), text(row.key)]),
        Number(row.seq),
      ]),
    );
    return rows.map((row) => finalSeq.get(JSON.stringify([row.entityId, row.key])) === row.seq);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    const result = (await this.sql('lt_remove_expired', SQL.removeExpired, [
      now,
      limit,
    ])) as unknown as { affectedRows?: number };
    return result.affectedRows ?? 0;
  }
}

function text(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
