import type { DataSource } from 'typeorm';
import { compareCodePoints } from '../../../common/canonical-json.js';
import { createSqlExecutor } from '../../connections/sql/sql-executor.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { LongtermStoreSettings } from './base-longterm.store.js';
import { SqlExecutorLongtermStore } from './sql-executor.longterm.store.js';
import type { TextMatch } from '../recall/text-match.js';
import type { ScoredRow } from './stored-row.js';
import type { PreparedEmbedding, VectorMatch } from '../recall/vector-match.js';
import { rangeParams } from '../recall/text-match.js';
import { type PgvectorMode, nearestSql, vectorLiteral } from './postgres-pgvector.js';
import { EntityCounts } from './entity-record-counts.js';
import { matchesSql } from './postgres-text-search.js';
import { ERASURE_MARK_KEY, NEVER_EXPIRES, TOMBSTONE, fromColumns } from './sql-row-format.js';
import { writeParameters } from './postgres-write-columns.js';

const COLUMNS = 'entity_id, key, value, seq, updated_at, expires_at';
const LIVE = `value <> '${TOMBSTONE}' AND expires_at > $`;

/**
 * Advisory-lock namespace of entity erasure (the first key; the second is `hashtext(entity_id)`).
 * Writes take it shared, an erasure exclusive: an erasure waits for the flushes already writing to
 * the entity, and they for it.
 */
const ERASURE_LOCK = 1819568500;

/**
 * Takes each entity's erasure lock (shared) and reads its erasure mark once, in a materialized CTE
 * over the batch's distinct entities (the last parameter: one row per entity, so one index probe
 * per entity, not per row — a per-row check was planned as an anti join that read the whole table);
 * rows at or below their entity's mark are filtered out; the seq guard is in the upsert's WHERE.
 * Rows either skips are not returned, so RETURNING lists what applied. With pgvector, `$11` holds
 * each vector as a `vector` literal, stored in `embedding_vector` beside the bytes.
 */
function writeSql(vector: boolean): string {
  const entities = vector ? '$12' : '$11';
  return `WITH entities AS MATERIALIZED (
      SELECT d.entity_id, pg_advisory_xact_lock_shared(${ERASURE_LOCK}, hashtext(d.entity_id)),
        (SELECT m.seq FROM agent_longterm_records m
          WHERE m.entity_id = d.entity_id AND m.key = '${ERASURE_MARK_KEY}') AS mark
      FROM unnest(${entities}::text[]) AS d(entity_id))
    INSERT INTO agent_longterm_records AS r
      (${COLUMNS}, search_vector, embedding, embedding_model${vector ? ', embedding_vector' : ''})
    SELECT u.entity_id, u.key, u.value, u.seq, u.updated_at, u.expires_at,
      u.search_text::tsvector, u.embedding, u.embedding_model${vector ? ', u.vector::vector' : ''}
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[],
      $7::text[], $8::bytea[], $9::text[]${vector ? ', $11::text[]' : ''})
      AS u(entity_id, key, value, seq, updated_at, expires_at, search_text, embedding,
        embedding_model${vector ? ', vector' : ''})
    JOIN entities x ON x.entity_id = u.entity_id
    WHERE x.mark IS NULL OR u.seq > x.mark
    ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
      updated_at = excluded.updated_at, expires_at = excluded.expires_at,
      search_vector = excluded.search_vector, embedding = excluded.embedding,
      embedding_model = excluded.embedding_model${vector ? ', embedding_vector = excluded.embedding_vector' : ''}
    WHERE excluded.seq >= r.seq OR r.expires_at <= $10
    RETURNING entity_id, key`;
}

/** entities, keys, seqs, models, vectors, values, now (and, with pgvector, `vector` literals): the rows updated */
function setEmbeddingsSql(vector: boolean): string {
  return `UPDATE agent_longterm_records AS r
    SET embedding = u.embedding, embedding_model = u.model${vector ? ', embedding_vector = u.vector::vector' : ''}
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::bytea[], $6::text[]${vector ? ', $8::text[]' : ''})
      AS u(entity_id, key, seq, model, embedding, value${vector ? ', vector' : ''})
    WHERE r.entity_id = u.entity_id AND r.key = u.key AND r.seq = u.seq AND r.value = u.value
      AND r.value <> '${TOMBSTONE}' AND r.expires_at > $7
    RETURNING r.entity_id, r.key`;
}

const MATCHES = matchesSql(COLUMNS);
/** Below this many records, an entity's text search runs as a prepared statement. */
const SMALL_ENTITY = 5_000;

const SQL = {
  write: writeSql(false),
  one: `SELECT ${COLUMNS} FROM agent_longterm_records WHERE entity_id = $1 AND key = $2 AND ${LIVE}3`,
  range: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = $1 AND key >= $2 AND key < $3 AND ${LIVE}4 ORDER BY key LIMIT $5`,
  rangeToEnd: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE entity_id = $1 AND key >= $2 AND ${LIVE}3 ORDER BY key LIMIT $4`,
  vectors: `SELECT key, embedding FROM agent_longterm_records
    WHERE entity_id = $1 AND embedding_model = $2 AND length(embedding) > 0 AND expires_at > $3
      AND key >= $4 AND ($5::text IS NULL OR key < $6) AND updated_at >= $7 AND updated_at < $8`,
  many: () => ({
    name: 'lt_many',
    sql: `SELECT ${COLUMNS} FROM agent_longterm_records
      WHERE entity_id = $1 AND key = ANY($2::text[]) AND ${LIVE}3`,
    keysAsArray: true,
  }),
  /** The row comparison uses the primary key's order; `$2` repeats `$1` (MariaDB's form needs it). */
  unembedded: `SELECT ${COLUMNS} FROM agent_longterm_records
    WHERE (entity_id, key) > ($1, $3) AND $2::text IS NOT NULL
      AND embedding_model IS DISTINCT FROM $4 AND ${LIVE}5
    ORDER BY entity_id, key LIMIT $6`,
  setEmbeddings: setEmbeddingsSql(false),
  removeExpired: `DELETE FROM agent_longterm_records WHERE ctid IN (
    SELECT ctid FROM agent_longterm_records WHERE expires_at <= $1 LIMIT $2) RETURNING 1`,
} as const;

/**
 * The erasure, in two transactions, each of which first takes the entity's erasure lock exclusive
 * (so it waits for the writes in flight, which hold it shared). The first records the mark — the
 * highest of the old mark, every stored seq and the counter — and raises the counter; once it has
 * committed, every write that starts sees the mark and is refused. The second deletes the rows at or
 * below the mark, including any that a write which started before the mark committed has put since.
 */
const ERASE = {
  lock: `SELECT pg_advisory_xact_lock(${ERASURE_LOCK}, hashtext($1))`,
  /** entity, now → the mark */
  mark: `WITH mark AS (
      SELECT GREATEST(
        (SELECT COALESCE(max(seq), 0) FROM agent_longterm_records WHERE entity_id = $1),
        (SELECT COALESCE(max(value), 0) FROM agent_longterm_counters WHERE entity_id = $1)) AS seq),
    counter AS (INSERT INTO agent_longterm_counters (entity_id, value) SELECT $1, seq FROM mark
      ON CONFLICT (entity_id) DO UPDATE
      SET value = GREATEST(agent_longterm_counters.value, excluded.value))
    INSERT INTO agent_longterm_records (${COLUMNS})
    SELECT $1, '${ERASURE_MARK_KEY}', '${TOMBSTONE}', seq, $2, ${NEVER_EXPIRES} FROM mark
    ON CONFLICT (entity_id, key) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at
    RETURNING seq`,
  /** entity, mark */
  removeRows: `DELETE FROM agent_longterm_records
    WHERE entity_id = $1 AND key <> '${ERASURE_MARK_KEY}' AND seq <= $2`,
} as const;

/**
 * Long-term store on PostgreSQL. `saveMany` is one `INSERT … SELECT FROM unnest(…) ON CONFLICT DO
 * UPDATE … WHERE <seq guard> RETURNING` statement; search is a range scan on the
 * `(entity_id, key)` primary key in `COLLATE "C"` (code-point) order; a text search matches any query
 * word in the GIN-indexed `search_vector` (the package's words as they are: quoted lexemes, never
 * re-parsed), ranked by BM25 computed in the statement.
 */
export class PostgresLongtermStore extends SqlExecutorLongtermStore {
  protected readonly system = 'postgresql' as const;
  private readonly writeStatement: string;
  private readonly counts = new EntityCounts();
  private readonly setEmbeddingsStatement: string;

  /**
   * `pgvector` (from `openPgvector`): keep each vector in pgvector's `embedding_vector` column too
   * and let PostgreSQL rank by cosine distance (through an HNSW index when one was built); without
   * it, vectors are ranked by an exact scan in the process.
   */
  constructor(
    private readonly dataSource: DataSource,
    settings?: LongtermStoreSettings,
    private readonly pgvector?: PgvectorMode,
  ) {
    super(createSqlExecutor(dataSource, 'postgres'), SQL, settings);
    this.writeStatement = pgvector ? writeSql(true) : SQL.write;
    this.setEmbeddingsStatement = pgvector ? setEmbeddingsSql(true) : SQL.setEmbeddings;
  }

  /** Whether vectors are ranked by pgvector (else by an exact scan in the process). */
  get usesPgvector(): boolean {
    return this.pgvector?.rank === true;
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const applied = await this.sql<{ entity_id: string; key: string }>(
      this.pgvector ? 'lt_write_pgvector' : 'lt_write',
      this.writeStatement,
      writeParameters(rows, now, this.pgvector !== undefined),
    );
    // A batch holds no (entity, key) twice, so as many rows back as sent means all applied.
    if (applied.length === rows.length) return rows.map(() => true);
    // U+0000 is in no id or key: it separates them safely.
    const done = new Set(applied.map((row) => `${row.entity_id}\u0000${row.key}`));
    return rows.map((row) => done.has(`${row.entityId}\u0000${row.key}`));
  }

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const known = this.counts.get(entityId, Date.now());
    // A small entity's search is prepared once (planning would cost more than it); a large one's is
    // planned for its words, since a plan made once for any words can be far off there.
    const name = known !== null && known < SMALL_ENTITY ? 'lt_matches' : null;
    const rows = await this.sql<Record<string, unknown>>(name, MATCHES, [
      // The words hold only letters and digits: no quoting, no tsquery operator can hide in one.
      // Quoted lexemes are taken as they are (words hold only letters and digits: nothing to escape).
      match.words.map((word) => `'${word}'`).join(' | '),
      entityId,
      now,
      match.words,
      match.lower,
      match.upper ?? null,
      match.updatedFrom,
      match.updatedTo,
      match.limit,
      known,
    ]);
    if (known === null && rows.length > 0)
      this.counts.set(entityId, Number(rows[0]!.n), Date.now());
    return rows.map((row) => ({ ...fromColumns(row), score: Number(row.score) }));
  }

  protected async writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]> {
    const done = await this.sql<{ entity_id: string; key: string }>(
      this.pgvector ? 'lt_set_embeddings_pgvector' : 'lt_set_embeddings',
      this.setEmbeddingsStatement,
      [
        updates.map((u) => u.entityId),
        updates.map((u) => u.key),
        updates.map((u) => u.seq),
        updates.map((u) => u.model),
        updates.map((u) => u.bytes),
        updates.map((u) => u.value),
        now,
        ...(this.pgvector ? [updates.map((u) => vectorLiteral(u.bytes))] : []),
      ],
    );
    const applied = new Set(done.map((row) => `${row.entity_id}\u0000${row.key}`));
    return updates.map((u) => applied.has(`${u.entityId}\u0000${u.key}`));
  }

  /** With pgvector, PostgreSQL ranks the entity's vectors (else the exact scan in the process). */
  protected override readNearest(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<ScoredRow[]> | undefined {
    if (!this.pgvector?.rank) return undefined;
    const sql = nearestSql(COLUMNS, LIVE, match.vector.length);
    // Unnamed, so planned for this entity: the HNSW index for a large one, its rows for a small one.
    return this.sql<Record<string, unknown>>(null, sql, [
      entityId,
      match.model,
      `[${Array.from(match.vector).join(',')}]`,
      now,
      ...rangeParams(match),
      match.limit,
    ]).then((rows) =>
      rows
        .map((row) => ({ ...fromColumns(row), score: Number(row.score) }))
        // Ties by key, as the exact scan orders them (the index orders by distance alone).
        .sort((a, b) => b.score - a.score || compareCodePoints(a.key, b.key)),
    );
  }

  protected async eraseEntity(entityId: string, now: number): Promise<void> {
    this.counts.forget(entityId);
    const mark = await this.dataSource.transaction(async (manager) => {
      await manager.query(ERASE.lock, [entityId]);
      const [row] = (await manager.query(ERASE.mark, [entityId, now])) as [{ seq: string }];
      return row.seq;
    });
    await this.dataSource.transaction(async (manager) => {
      await manager.query(ERASE.lock, [entityId]);
      await manager.query(ERASE.removeRows, [entityId, mark]);
    });
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    return (await this.sql('lt_remove_expired', SQL.removeExpired, [now, limit])).length;
  }
}
