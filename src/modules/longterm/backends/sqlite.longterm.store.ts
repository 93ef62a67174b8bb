import type { Statement } from 'better-sqlite3';
import type { DataSource } from 'typeorm';
import { type SqliteHandle, sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type ScoredRow,
  type StoredRow,
} from './base-longterm.store.js';
import { type TextMatch, rangeParams } from '../recall/text-match.js';
import type { PreparedEmbedding, VectorMatch } from '../recall/vector-match.js';
import { pageAfter, startAfter } from './row-cursor.js';
import type { VectorCandidate } from './vector-scan.js';
import {
  ERASURE_MARK_KEY,
  NEVER_EXPIRES,
  TOMBSTONE,
  fromColumns,
  toColumns,
} from './sql-row-format.js';

const COLUMNS = 'entity_id, key, value, seq, updated_at, expires_at';
const LIVE = `value <> '${TOMBSTONE}' AND expires_at > ?`;
/**
 * The text search: FTS5 finds the rows by the query's words behind the entity's tag — so only this
 * entity's postings are read (`CROSS JOIN` keeps the index the outer loop, else the planner may walk
 * the entity's rows and test each against it) — and the join keeps the entity's live ones within the
 * filters. Only the best `limit` rows' values are read (a row without text, a tombstone say, is not
 * in the index, so the value is not compared either).
 */
const MATCHES = `SELECT r.entity_id, r.key, r.value, r.seq, r.updated_at, r.expires_at, best.score
  FROM (SELECT r.rowid AS id, r.key AS key, -bm25(agent_longterm_terms) AS score
    FROM agent_longterm_terms CROSS JOIN agent_longterm_records r
      ON r.rowid = agent_longterm_terms.rowid
    WHERE agent_longterm_terms MATCH ? AND r.entity_id = ? AND r.expires_at > ?
      AND r.key >= ? AND (? IS NULL OR r.key < ?) AND r.updated_at >= ? AND r.updated_at < ?
    ORDER BY score DESC, r.key LIMIT ?) AS best
  JOIN agent_longterm_records r ON r.rowid = best.id
  ORDER BY best.score DESC, best.key`;

/**
 * Long-term store on SQLite: each batch is one synchronous `BEGIN IMMEDIATE` transaction of
 * `INSERT … ON CONFLICT DO UPDATE … WHERE <seq guard> RETURNING` (a row comes back iff it applied);
 * TEXT keys in the BINARY collation give code-point order for the primary-key range scan; a text
 * search is an FTS5 `MATCH` of any query word behind the entity's tag, ranked by `bm25()` (term
 * frequencies of the entity's own rows; the row count and average length FTS5 keeps are the
 * table's).
 */
export class SqliteLongtermStore extends BaseLongtermStore {
  protected readonly system = 'sqlite' as const;
  private readonly db: SqliteHandle;
  private readonly statements: Record<
    | 'write'
    | 'one'
    | 'range'
    | 'rangeToEnd'
    | 'removeExpired'
    | 'mark'
    | 'removeRows'
    | 'setMark'
    | 'raiseCounter'
    | 'matches'
    | 'tag'
    | 'vectors'
    | 'many'
    | 'unembedded'
    | 'setEmbedding',
    Statement<unknown[]>
  >;
  private readonly writeTransaction: (rows: PreparedRecord[], now: number) => boolean[];
  private readonly eraseTransaction: (entityId: string, now: number) => void;
  private readonly setEmbeddingsTransaction: (
    updates: PreparedEmbedding[],
    now: number,
  ) => boolean[];

  constructor(dataSource: DataSource, settings?: LongtermStoreSettings) {
    super(settings);
    this.db = sqliteHandle(dataSource);
    this.statements = {
      // Nothing is inserted at or below the entity's erasure mark; the seq guard is the upsert's WHERE.
      write: this.db.prepare(`INSERT INTO agent_longterm_records
          (${COLUMNS}, search_text, embedding, embedding_model)
        SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM agent_longterm_records
          WHERE entity_id = ? AND key = '${ERASURE_MARK_KEY}' AND seq >= ?)
        ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
          updated_at = excluded.updated_at, expires_at = excluded.expires_at,
          search_text = excluded.search_text, embedding = excluded.embedding,
          embedding_model = excluded.embedding_model
        WHERE excluded.seq >= agent_longterm_records.seq OR agent_longterm_records.expires_at <= ?
        RETURNING 1`),
      one: this.db.prepare(
        `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = ? AND key = ? AND ${LIVE}`,
      ),
      range: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE entity_id = ? AND key >= ? AND key < ? AND ${LIVE} ORDER BY key LIMIT ?`),
      rangeToEnd: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE entity_id = ? AND key >= ? AND ${LIVE} ORDER BY key LIMIT ?`),
      mark: this.db
        .prepare(
          `SELECT max(
            (SELECT coalesce(max(seq), 0) FROM agent_longterm_records WHERE entity_id = ?),
            (SELECT coalesce(max(value), 0) FROM agent_longterm_counters WHERE entity_id = ?))`,
        )
        .pluck(),
      removeRows: this.db.prepare(
        `DELETE FROM agent_longterm_records WHERE entity_id = ? AND key <> '${ERASURE_MARK_KEY}'`,
      ),
      setMark: this.db.prepare(`INSERT INTO agent_longterm_records (${COLUMNS})
        VALUES (?, '${ERASURE_MARK_KEY}', '${TOMBSTONE}', ?, ?, ${NEVER_EXPIRES})
        ON CONFLICT (entity_id, key) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at`),
      raiseCounter: this.db
        .prepare(`INSERT INTO agent_longterm_counters (entity_id, value) VALUES (?, ?)
        ON CONFLICT (entity_id) DO UPDATE SET value = max(value, excluded.value)`),
      matches: this.db.prepare(MATCHES),
      tag: this.db.prepare('SELECT tag FROM agent_longterm_text_tags WHERE entity_id = ?').pluck(),
      // Keys and vectors only. A tombstone never has a vector, so the value is not even compared.
      vectors: this.db.prepare(`SELECT key, embedding FROM agent_longterm_records
        WHERE entity_id = ? AND embedding_model = ? AND length(embedding) > 0 AND expires_at > ?
          AND key >= ? AND (? IS NULL OR key < ?) AND updated_at >= ? AND updated_at < ?`),
      many: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE entity_id = ? AND key IN (SELECT value FROM json_each(?)) AND ${LIVE}`),
      unembedded: this.db.prepare(`SELECT ${COLUMNS} FROM agent_longterm_records
        WHERE (entity_id, key) > (?, ?) AND embedding_model IS NOT ? AND ${LIVE}
        ORDER BY entity_id, key LIMIT ?`),
      setEmbedding: this.db.prepare(`UPDATE agent_longterm_records
        SET embedding = ?, embedding_model = ?
        WHERE entity_id = ? AND key = ? AND seq = ? AND value = ? AND ${LIVE}`),
      removeExpired: this.db.prepare(`DELETE FROM agent_longterm_records WHERE rowid IN (
        SELECT rowid FROM agent_longterm_records WHERE expires_at <= ? LIMIT ?)`),
    };
    const transaction = this.db.transaction((rows: PreparedRecord[], now: number) =>
      rows.map(
        (row) =>
          this.statements.write.get(...toColumns(row), row.entityId, row.seq, now) !== undefined,
      ),
    );
    this.writeTransaction = (rows, now) => transaction.immediate(rows, now);
    const erase = this.db.transaction((entityId: string, now: number) => {
      const mark = Number(this.statements.mark.get(entityId, entityId));
      this.statements.removeRows.run(entityId);
      this.statements.setMark.run(entityId, mark, now);
      this.statements.raiseCounter.run(entityId, mark);
    });
    this.eraseTransaction = (entityId, now) => erase.immediate(entityId, now);
    const setEmbeddings = this.db.transaction((updates: PreparedEmbedding[], now: number) =>
      updates.map(
        (u) =>
          this.statements.setEmbedding.run(u.bytes, u.model, u.entityId, u.key, u.seq, u.value, now)
            .changes === 1,
      ),
    );
    this.setEmbeddingsTransaction = (updates, now) => setEmbeddings.immediate(updates, now);
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

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const tag = this.statements.tag.get(entityId) as number | undefined;
    // An entity without a tag never had a record with text.
    if (tag === undefined) return [];
    const rows = this.statements.matches.all(
      match.words.map((word) => `"q${tag}q${word}"`).join(' OR '),
      entityId,
      now,
      ...rangeParams(match),
      match.limit,
    ) as Array<Record<string, unknown>>;
    return rows.map((row) => ({ ...fromColumns(row), score: Number(row.score) }));
  }

  protected async readVectors(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<VectorCandidate[]> {
    return this.statements.vectors.all(
      entityId,
      match.model,
      now,
      ...rangeParams(match),
    ) as VectorCandidate[];
  }

  protected async readMany(entityId: string, keys: string[], now: number): Promise<StoredRow[]> {
    const rows = this.statements.many.all(entityId, JSON.stringify(keys), now);
    return (rows as Array<Record<string, unknown>>).map(fromColumns);
  }

  protected async readUnembedded(
    model: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): Promise<{ rows: StoredRow[]; cursor?: string }> {
    const after = startAfter(cursor);
    const rows = this.statements.unembedded.all(after.entityId, after.key, model, now, limit);
    return pageAfter((rows as Array<Record<string, unknown>>).map(fromColumns), limit);
  }

  protected async writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]> {
    return this.setEmbeddingsTransaction(updates, now);
  }

  protected async eraseEntity(entityId: string, now: number): Promise<void> {
    this.eraseTransaction(entityId, now);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    return this.statements.removeExpired.run(now, limit).changes;
  }
}
