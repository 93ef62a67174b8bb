import { setTimeout as sleep } from 'node:timers/promises';
import { entityTag } from './mysql-entity-tag.js';
import type { DataSource } from 'typeorm';
import { createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { MysqlPacketLimit, escapedByteLength } from '../../connections/sql/mysql-packet-limit.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { LongtermStoreSettings } from './base-longterm.store.js';
import { SqlExecutorLongtermStore } from './sql-executor.longterm.store.js';
import { type TextMatch, rangeParams } from '../recall/text-match.js';
import type { ScoredRow } from './stored-row.js';
import type { PreparedEmbedding } from '../recall/vector-match.js';
import {
  ERASURE_MARK_KEY,
  NEVER_EXPIRES,
  TOMBSTONE,
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
 * `expires_at`, so `value`, `updated_at`, `search_text` and the vector go first, then `seq` (whose guard still sees the old
 * `expires_at`), then `expires_at` (whose guard sees the new `seq`, equal to the incoming one exactly
 * when the row applied). RETURNING gives the row as it ends up: it applied iff it now holds the
 * incoming seq (an equal seq always applies); a filtered row is not returned.
 */
function writeSql(rows: number): string {
  const row = 'SELECT ? AS e, ? AS k, ? AS v, ? AS s, ? AS u, ? AS x, ? AS t, ? AS b, ? AS m';
  return `INSERT INTO agent_longterm_records (${COLUMNS}, search_text, embedding, embedding_model)
    SELECT b.e, b.k, b.v, b.s, b.u, b.x, b.t, b.b, b.m FROM (${Array(rows).fill(row).join(' UNION ALL ')}) AS b
    WHERE NOT EXISTS (SELECT 1 FROM agent_longterm_records m
      WHERE m.entity_id = b.e AND m.\`key\` = '${ERASURE_MARK_KEY}' AND m.seq >= b.s)
    ON DUPLICATE KEY UPDATE
      value = IF(${GUARD}, VALUES(value), agent_longterm_records.value),
      updated_at = IF(${GUARD}, VALUES(updated_at), agent_longterm_records.updated_at),
      search_text = IF(${GUARD}, VALUES(search_text), agent_longterm_records.search_text),
      embedding = IF(${GUARD}, VALUES(embedding), agent_longterm_records.embedding),
      embedding_model = IF(${GUARD}, VALUES(embedding_model),
        agent_longterm_records.embedding_model),
      seq = IF(${GUARD}, VALUES(seq), agent_longterm_records.seq),
      expires_at = IF(${GUARD}, VALUES(expires_at), agent_longterm_records.expires_at)
    RETURNING entity_id, \`key\`, seq`;
}

/** The erasure, statement by statement in one transaction (parameters: see each). */
const ERASE = {
  /** entity ×2 → the mark: the highest stored seq (old mark included) or counter value. */
  mark: `SELECT GREATEST(
      (SELECT COALESCE(MAX(seq), 0) FROM agent_longterm_records WHERE entity_id = ?),
      (SELECT COALESCE(MAX(value), 0) FROM agent_longterm_counters WHERE entity_id = ?)) AS mark`,
  /** entity */
  removeRows: `DELETE FROM agent_longterm_records WHERE entity_id = ? AND \`key\` <> '${ERASURE_MARK_KEY}'`,
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
  removeExpired: 'DELETE FROM agent_longterm_records WHERE expires_at <= ? LIMIT ?',
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
  /**
   * words ×2 (behind the entity's tag), entity, now, lower, upper ×2 (or NULL), updatedFrom,
   * updatedTo, limit, entity. The index holds only the entity's words under its tag, so the
   * full-text lookup reads its postings alone; only the best rows' values are read (a tombstone has
   * no text, so it is never matched).
   */
  matches: `SELECT r.entity_id, r.\`key\`, r.value, r.seq, r.updated_at, r.expires_at, best.score
    FROM (SELECT \`key\`, MATCH (search_text) AGAINST (? IN NATURAL LANGUAGE MODE) AS score
      FROM agent_longterm_records
      WHERE MATCH (search_text) AGAINST (? IN NATURAL LANGUAGE MODE) AND entity_id = ?
        AND expires_at > ? AND \`key\` >= ? AND (? IS NULL OR \`key\` < ?)
        AND updated_at >= ? AND updated_at < ?
      ORDER BY score DESC, \`key\` LIMIT ?) AS best
    JOIN agent_longterm_records r ON r.entity_id = ? AND r.\`key\` = best.\`key\`
    ORDER BY best.score DESC, best.\`key\``,
} as const;

/**
 * Long-term store on MariaDB ≥ 10.5 (binary `VARBINARY` keys: byte, i.e. code-point, order; no
 * pad). `saveMany` is one `INSERT … ON DUPLICATE KEY UPDATE` with `IF(guard, …)` per column and
 * MariaDB's `RETURNING` for the per-row verdict; a text search is a natural-language `MATCH … AGAINST`
 * on the InnoDB `FULLTEXT` index of `search_text`, ranked by InnoDB's relevance. MySQL has no `INSERT … RETURNING`: the module
 * refuses a MySQL server at bootstrap (`UnsupportedDatabaseError`).
 */
export class MysqlLongtermStore extends SqlExecutorLongtermStore {
  protected readonly system = 'mysql' as const;
  private readonly packet: MysqlPacketLimit;

  constructor(
    private readonly dataSource: DataSource,
    settings?: LongtermStoreSettings,
  ) {
    super(createSqlExecutor(dataSource, 'mysql'), SQL, settings);
    this.packet = new MysqlPacketLimit(dataSource);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const params = rows.flatMap((row) => {
      const columns = toColumns(row, (text) => fullTextForm(text, entityTag(row.entityId)));
      // The columns are NOT NULL: a tombstone's text and a row without vector are empty.
      columns[6] ??= '';
      columns[7] ??= EMPTY;
      columns[8] ??= '';
      return columns;
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
    // The batch size varies, so the statement goes through TypeORM rather than a cached prepare.
    const returned = (await retryOnDeadlock(() =>
      this.dataSource.query(writeSql(rows.length), [...params, ...Array<number>(7).fill(now)]),
    )) as Array<Record<string, unknown>>;
    const finalSeq = new Map(
      returned.map((row) => [
        JSON.stringify([text(row.entity_id), text(row.key)]),
        Number(row.seq),
      ]),
    );
    return rows.map((row) => finalSeq.get(JSON.stringify([row.entityId, row.key])) === row.seq);
  }

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const words = fullTextForm(match.words.join(' '), entityTag(entityId));
    const rows = await this.sql<Record<string, unknown>>('lt_matches', SQL.matches, [
      words,
      words,
      entityId,
      now,
      ...rangeParams(match),
      match.limit,
      entityId,
    ]);
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
    await this.dataSource.transaction(async (manager) => {
      const [{ mark }] = (await manager.query(ERASE.mark, [entityId, entityId])) as [
        { mark: string | number },
      ];
      await manager.query(ERASE.removeRows, [entityId]);
      await manager.query(ERASE.setMark, [entityId, Number(mark), now]);
      await manager.query(ERASE.raiseCounter, [entityId, Number(mark)]);
    });
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    const result = (await this.sql('lt_remove_expired', SQL.removeExpired, [
      now,
      limit,
    ])) as unknown as { affectedRows?: number };
    return result.affectedRows ?? 0;
  }
}

/** Deadlocks a statement may meet before it is given up (each retry is the whole statement). */
const DEADLOCK_ATTEMPTS = 5;

/**
 * Runs a statement again when InnoDB picked it as a deadlock victim. The mark check reads the
 * entity's mark row inside `INSERT … SELECT`, which InnoDB does with shared next-key locks, so two
 * first inserts of one entity can deadlock; the victim's statement is rolled back whole, and running
 * it again is safe (the seq guard decides the same way).
 */
async function retryOnDeadlock<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await statement();
    } catch (error) {
      const errno = (error as { driverError?: { errno?: number } }).driverError?.errno;
      if (errno !== ER_LOCK_DEADLOCK || attempt >= DEADLOCK_ATTEMPTS) throw error;
      await sleep(Math.random() * 5 * attempt);
    }
  }
}

const ER_LOCK_DEADLOCK = 1213;
const EMPTY = Buffer.alloc(0);

/**
 * Indexed words as InnoDB's full-text parser must see them: each behind its entity's tag, so a
 * word's postings hold one entity's rows, and suffixed with `__` (`_` is a word character there, and
 * no word holds one), so that one- and two-letter words reach its minimum token size of 3 and no
 * word is one of its stop words. A word is then at most 8 + 64 + 2 characters, within InnoDB's
 * largest token (84).
 */
function fullTextForm(text: string, tag: string): string {
  return text.length === 0 ? text : `${tag}${text.replaceAll(' ', `__ ${tag}`)}__`;
}

function text(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
