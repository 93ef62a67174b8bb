import type { DataSource } from 'typeorm';
import { createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { retryOnDeadlock } from '../../connections/sql/retry-on-deadlock.js';
import { MysqlPacketLimit, escapedByteLength } from '../../connections/sql/mysql-packet-limit.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { LongtermStoreSettings } from './base-longterm.store.js';
import { SqlExecutorLongtermStore } from './sql-executor.longterm.store.js';
import { type TextMatch, filtersByTime, rangeParams } from '../recall/text-match.js';
import type { ScoredRow } from './stored-row.js';
import { EntityCounts } from './entity-record-counts.js';
import { appliedRows, deleteRecordRows, termMatchesSql, updateTerms } from './mysql-text-terms.js';
import type { PreparedEmbedding } from '../recall/vector-match.js';
import {
  ERASURE_MARK_KEY,
  NEVER_EXPIRES,
  TOMBSTONE,
  columnText,
  fromColumns,
  toColumns,
} from './sql-row-format.js';

const COLUMNS = 'entity_id, `key`, value, seq, updated_at, expires_at';
const GUARD =
  '(VALUES(seq) >= agent_longterm_records.seq OR agent_longterm_records.expires_at <= ?)';

/**
 * The batch comes in as a derived table (one `SELECT ?, …` per row, `UNION ALL`) so rows at or below
 * their entity's erasure mark can be filtered out before the insert. MariaDB evaluates the
 * assignments left to right, each seeing the columns already assigned: the guard reads `seq` and
 * `expires_at`, so `value`, `updated_at` and the vector go first, then `seq` (whose guard still sees the old
 * `expires_at`), then `expires_at` (whose guard sees the new `seq`, equal to the incoming one exactly
 * when the row applied). RETURNING gives the row as it ends up: it applied iff it now holds the
 * incoming seq (an equal seq always applies); a filtered row is not returned.
 */
function writeSql(rows: number): string {
  const row = 'SELECT ? AS e, ? AS k, ? AS v, ? AS s, ? AS u, ? AS x, ? AS b, ? AS m';
  return `INSERT INTO agent_longterm_records (${COLUMNS}, embedding, embedding_model)
    SELECT b.e, b.k, b.v, b.s, b.u, b.x, b.b, b.m FROM (${Array(rows).fill(row).join(' UNION ALL ')}) AS b
    WHERE NOT EXISTS (SELECT 1 FROM agent_longterm_records m
      WHERE m.entity_id = b.e AND m.\`key\` = '${ERASURE_MARK_KEY}' AND m.seq >= b.s)
    ON DUPLICATE KEY UPDATE
      value = IF(${GUARD}, VALUES(value), agent_longterm_records.value),
      updated_at = IF(${GUARD}, VALUES(updated_at), agent_longterm_records.updated_at),
      embedding = IF(${GUARD}, VALUES(embedding), agent_longterm_records.embedding),
      embedding_model = IF(${GUARD}, VALUES(embedding_model),
        agent_longterm_records.embedding_model),
      seq = IF(${GUARD}, VALUES(seq), agent_longterm_records.seq),
      expires_at = IF(${GUARD}, VALUES(expires_at), agent_longterm_records.expires_at)
    RETURNING entity_id, \`key\`, seq`;
}

/** The erasure, statement by statement in one transaction (parameters: see each). */
const ERASE = {
  /**
   * entity: locks the entity's rows and the gaps between them, so no save of it commits between the
   * mark's read and the delete (its seq would be above the mark and its row gone).
   */
  lock: 'SELECT COUNT(*) AS n FROM agent_longterm_records WHERE entity_id = ? FOR UPDATE',
  /** entity ×2 → the mark: the highest stored seq (old mark included) or counter value. */
  mark: `SELECT GREATEST(
      (SELECT COALESCE(MAX(seq), 0) FROM agent_longterm_records WHERE entity_id = ?),
      (SELECT COALESCE(MAX(value), 0) FROM agent_longterm_counters WHERE entity_id = ?)) AS mark`,
  /** entity */
  removeRows: `DELETE FROM agent_longterm_records WHERE entity_id = ? AND \`key\` <> '${ERASURE_MARK_KEY}'`,
  /** entity */
  removeTerms: 'DELETE FROM agent_longterm_terms WHERE entity_id = ?',
  /** entity, mark, now */
  setMark: `INSERT INTO agent_longterm_records (${COLUMNS})
    VALUES (?, '${ERASURE_MARK_KEY}', '${TOMBSTONE}', ?, ?, ${NEVER_EXPIRES})
    ON DUPLICATE KEY UPDATE seq = VALUES(seq), updated_at = VALUES(updated_at)`,
  /** entity, mark */
  raiseCounter: `INSERT INTO agent_longterm_counters (entity_id, value) VALUES (?, ?)
    ON DUPLICATE KEY UPDATE value = GREATEST(value, VALUES(value))`,
} as const;

const LIVE = `value <> '${TOMBSTONE}' AND expires_at > ?`;
const SQL = {
  one: `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = ? AND \`key\` = ? AND ${LIVE}`,
  range: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = ? AND \`key\` >= ? AND \`key\` < ? AND ${LIVE} ORDER BY \`key\` LIMIT ?`,
  rangeToEnd: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = ? AND \`key\` >= ? AND ${LIVE} ORDER BY \`key\` LIMIT ?`,
  /** now, limit: the expired rows, locked until their terms and they are removed. */
  expired: `SELECT entity_id, \`key\` FROM agent_longterm_records WHERE expires_at <= ? LIMIT ?
    FOR UPDATE`,
  vectors: `SELECT \`key\`, embedding FROM agent_longterm_records
    WHERE entity_id = ? AND embedding_model = ? AND LENGTH(embedding) > 0 AND expires_at > ?
      AND \`key\` >= ? AND (? IS NULL OR \`key\` < ?) AND updated_at >= ? AND updated_at < ?`,
  many: (count: number) => ({
    name: null,
    sql: `SELECT ${COLUMNS} FROM agent_longterm_records
      WHERE entity_id = ? AND \`key\` IN (${Array(count).fill('?').join(', ')}) AND ${LIVE}`,
    keysAsArray: false,
  }),
  unembedded: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE (entity_id > ? OR (entity_id = ? AND \`key\` > ?)) AND embedding_model <> ? AND ${LIVE}
    ORDER BY entity_id, \`key\` LIMIT ?`,
  /** vector, model, entity, key, seq, value, now */
  setEmbedding: `UPDATE agent_longterm_records SET embedding = ?, embedding_model = ?
    WHERE entity_id = ? AND \`key\` = ? AND seq = ? AND value = ? AND ${LIVE}`,
} as const;

/**
 * Long-term store on MariaDB ≥ 10.5 (binary `VARBINARY` keys: byte, i.e. code-point, order; no
 * pad). `saveMany` is one `INSERT … ON DUPLICATE KEY UPDATE` with `IF(guard, …)` per column and
 * MariaDB's `RETURNING` for the per-row verdict, and the applied records' terms brought up to date
 * in the same transaction; a text search ranks by BM25 over `agent_longterm_terms` (see
 * `termMatchesSql`). MySQL has no `INSERT … RETURNING`: the module refuses a MySQL server at
 * bootstrap (`UnsupportedDatabaseError`).
 */
export class MysqlLongtermStore extends SqlExecutorLongtermStore {
  protected readonly system = 'mysql' as const;
  private readonly packet: MysqlPacketLimit;
  private readonly counts = new EntityCounts();

  constructor(
    private readonly dataSource: DataSource,
    settings?: LongtermStoreSettings,
  ) {
    super(createSqlExecutor(dataSource, 'mysql'), SQL, settings);
    this.packet = new MysqlPacketLimit(dataSource);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const params = rows.flatMap((row) => {
      const [entityId, key, value, seq, updatedAt, expiresAt, , bytes, model] = toColumns(row);
      // The columns are NOT NULL: a row without vector has an empty one.
      return [entityId, key, value, seq, updatedAt, expiresAt, bytes ?? EMPTY, model ?? ''];
    });
    // The statement goes as text: every string is escaped inline, numbers take their digits.
    await this.packet.assertFits(
      rows.length === 1 ? 'record' : 'records',
      params.reduce<number>(
        (bytes, param) =>
          bytes +
          (typeof param === 'string'
            ? escapedByteLength(param)
            : Buffer.isBuffer(param)
              ? 2 * param.length + 3 // sent as X'…' hex
              : 20) +
          60,
        0,
      ),
    );
    // The records and their terms change in one transaction: a search sees both or neither. The
    // batch size varies, so the statements go through TypeORM rather than a cached prepare. The
    // mark check reads the entity's mark row inside `INSERT … SELECT` (shared next-key locks) and
    // the terms of new keys go into the gaps between an entity's rows, so two writes of one entity
    // can deadlock: the victim runs again.
    const finalSeq = await retryOnDeadlock(() =>
      this.dataSource.transaction(async (manager) => {
        const returned = (await manager.query(writeSql(rows.length), [
          ...params,
          ...Array<number>(6).fill(now),
        ])) as Array<Record<string, unknown>>;
        const seqs = new Map(
          returned.map((row) => [
            JSON.stringify([columnText(row.entity_id), columnText(row.key)]),
            Number(row.seq),
          ]),
        );
        await updateTerms(manager, appliedRows(rows, seqs));
        return seqs;
      }),
    );
    return rows.map((row) => finalSeq.get(JSON.stringify([row.entityId, row.key])) === row.seq);
  }

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const known = this.counts.get(entityId, Date.now());
    const [lower, upper, upperAgain, updatedFrom, updatedTo] = rangeParams(match);
    const byTime = filtersByTime(match);
    const sql = termMatchesSql(match.words.length, byTime);
    const rows = await this.sql<Record<string, unknown>>(null, sql, [
      lower,
      upper,
      upperAgain,
      ...(byTime ? [updatedFrom, updatedTo] : []),
      known,
      entityId,
      now,
      entityId,
      ...match.words,
      now,
      match.limit,
      entityId,
    ]);
    if (known === null && rows.length > 0)
      this.counts.set(entityId, Number(rows[0]!.n), Date.now());
    return rows.map((row) => ({ ...fromColumns(row), score: Number(row.score) }));
  }

  protected async writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]> {
    const applied: boolean[] = [];
    for (const u of updates) {
      const result = (await this.sql('lt_set_embedding', SQL.setEmbedding, [
        u.bytes,
        u.model,
        u.entityId,
        u.key,
        u.seq,
        u.value,
        now,
      ])) as unknown as { affectedRows?: number };
      applied.push(result.affectedRows === 1);
    }
    return applied;
  }

  protected async eraseEntity(entityId: string, now: number): Promise<void> {
    this.counts.forget(entityId);
    await retryOnDeadlock(() =>
      this.dataSource.transaction(async (manager) => {
        await manager.query(ERASE.lock, [entityId]);
        const [{ mark }] = (await manager.query(ERASE.mark, [entityId, entityId])) as [
          { mark: string | number },
        ];
        await manager.query(ERASE.removeRows, [entityId]);
        await manager.query(ERASE.removeTerms, [entityId]);
        await manager.query(ERASE.setMark, [entityId, Number(mark), now]);
        await manager.query(ERASE.raiseCounter, [entityId, Number(mark)]);
      }),
    );
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    return retryOnDeadlock(() =>
      this.dataSource.transaction(async (manager) => {
        const expired = (await manager.query(SQL.expired, [now, limit])) as Array<
          Record<string, unknown>
        >;
        if (expired.length === 0) return 0;
        const records = expired.map((row) => ({
          entityId: columnText(row.entity_id),
          key: columnText(row.key),
        }));
        await deleteRecordRows(manager, 'agent_longterm_terms', records);
        await deleteRecordRows(manager, 'agent_longterm_records', records);
        return expired.length;
      }),
    );
  }
}

const EMPTY = Buffer.alloc(0);
