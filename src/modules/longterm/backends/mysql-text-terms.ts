import type { EntityManager } from 'typeorm';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { NEVER_EXPIRES } from './sql-row-format.js';

/**
 * One row of `agent_longterm_terms`: entity, term, key, how often the term occurs, the record's
 * number of distinct terms, and the record's update time and expiry (so a search filters and ranks
 * without reading the records).
 */
export type TermRow = [
  entityId: string,
  term: string,
  key: string,
  tf: number,
  length: number,
  updatedAt: number,
  expiresAt: number,
];

/**
 * Term rows per `INSERT` (seven parameters each): a statement of the longest terms and keys stays
 * well within the smallest `max_allowed_packet`.
 */
const ROWS_PER_INSERT = 200;

/**
 * A record's term rows from its indexed text (its words and their stems, space-separated): one row
 * per distinct term with its count; the record's length is its number of distinct terms (as on
 * PostgreSQL).
 */
export function termRows(record: PreparedRecord, text: string): TermRow[] {
  const counts = new Map<string, number>();
  for (const term of text.split(' ')) {
    if (term.length > 0) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  const expiresAt = record.expiresAt ?? NEVER_EXPIRES;
  return [...counts].map(([term, tf]) => [
    record.entityId,
    term,
    record.key,
    tf,
    counts.size,
    record.updatedAt,
    expiresAt,
  ]);
}

/**
 * The rows of the batch that applied, by `[entity, key]` JSON: a row applied iff its record now
 * holds its seq; of two rows of one record with that seq, the later (which the upsert applied last).
 */
export function appliedRows(
  rows: PreparedRecord[],
  finalSeq: Map<string, number>,
): Map<string, PreparedRecord> {
  const applied = new Map<string, PreparedRecord>();
  for (const row of rows) {
    const id = JSON.stringify([row.entityId, row.key]);
    if (finalSeq.get(id) === row.seq) applied.set(id, row);
  }
  return applied;
}

/**
 * Replaces the terms of the applied records (from `appliedRows`) in the write's transaction: their
 * earlier terms go — also for a tombstone, and with text search off (a save's text is then empty),
 * so no record is found by words it no longer holds — then their new ones are inserted.
 */
export async function replaceTerms(
  manager: EntityManager,
  applied: Map<string, PreparedRecord>,
): Promise<void> {
  if (applied.size === 0) return;
  const terms: TermRow[] = [];
  for (const row of applied.values()) {
    if (row.text) for (const term of termRows(row, row.text)) terms.push(term);
  }
  await deleteRecordRows(manager, 'agent_longterm_terms', [...applied.values()]);
  for (let start = 0; start < terms.length; start += ROWS_PER_INSERT) {
    const part = terms.slice(start, start + ROWS_PER_INSERT);
    await manager.query(
      `INSERT INTO agent_longterm_terms
        (entity_id, term, \`key\`, tf, length, updated_at, expires_at)
        VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      part.flat(),
    );
  }
}

/**
 * Deletes the rows of the given records from `table` (the terms, or the records themselves), one
 * `DELETE … WHERE entity_id = ? AND key IN (…)` per entity: a range read of the primary key for
 * each key (MariaDB reads a list of `(entity_id, key)` pairs that long by scanning instead).
 */
export async function deleteRecordRows(
  manager: EntityManager,
  table: 'agent_longterm_terms' | 'agent_longterm_records',
  records: Array<{ entityId: string; key: string }>,
): Promise<void> {
  const keysByEntity = new Map<string, string[]>();
  for (const { entityId, key } of records) {
    const keys = keysByEntity.get(entityId);
    if (keys) keys.push(key);
    else keysByEntity.set(entityId, [key]);
  }
  for (const [entityId, keys] of keysByEntity) {
    await manager.query(
      `DELETE FROM ${table} WHERE entity_id = ? AND \`key\` IN (${keys.map(() => '?').join(', ')})`,
      [entityId, ...keys],
    );
  }
}

/**
 * The MariaDB text search over `agent_longterm_terms`, for `words` query words. Parameters: lower,
 * upper ×2 (or NULL), updatedFrom, updatedTo, the entity's record count if known (else NULL:
 * counted here and returned as `n`), entity, now, entity, the words, now, limit, entity.
 *
 * BM25 (k1 1.2, b 0.75) over the entity's live records, as on PostgreSQL, in one pass over the
 * query words' postings: the index (entity, term, count, length, update time, expiry; the key rides
 * along as the primary key's) gives each word's rows in one range read, none of the table's read.
 * Arithmetic in doubles (`1e0`), not MariaDB's decimals. Every live record
 * holding a word is among them, so its document frequency is counted there, whatever the key and
 * time filters, which only decide which records may be answered; the average length is the
 * matched records'. Only the best `limit` records are read.
 */
export function termMatchesSql(words: number): string {
  return `SELECT r.entity_id, r.\`key\`, r.value, r.seq, r.updated_at, r.expires_at, best.score,
      best.n
    FROM (
      SELECT h.\`key\`, MAX(h.n) AS n,
        SUM(LN(1e0 + (GREATEST(h.n, h.df) - h.df + 0.5e0) / (h.df + 0.5e0))
          * h.tf * 2.2e0 / (h.tf + 1.2e0 * (0.25e0 + 0.75e0 * h.length / h.average))) AS score
      FROM (
        SELECT p.\`key\`, p.tf, p.length, p.n, p.wanted, p.df,
          -- Each record once: a record holding k of the words counts 1/k in each of its rows.
          GREATEST(SUM(p.length / p.k) OVER () / SUM(1e0 / p.k) OVER (), 1e0) AS average
        FROM (
          SELECT t.\`key\`, t.tf * 1e0 AS tf, t.length * 1e0 AS length, n.n * 1e0 AS n,
            t.\`key\` >= ? AND (? IS NULL OR t.\`key\` < ?) AND t.updated_at >= ?
              AND t.updated_at < ? AS wanted,
            COUNT(*) OVER (PARTITION BY t.term) * 1e0 AS df,
            COUNT(*) OVER (PARTITION BY t.\`key\`) * 1e0 AS k
          FROM agent_longterm_terms t FORCE INDEX (idx_agent_longterm_terms_search)
          JOIN (SELECT COALESCE(?, (SELECT COUNT(*) FROM agent_longterm_records
            WHERE entity_id = ? AND value <> '' AND expires_at > ?)) AS n) n
          WHERE t.entity_id = ? AND t.term IN (${Array(words).fill('?').join(', ')})
            AND t.expires_at > ?) p) h
      WHERE h.wanted
      GROUP BY h.\`key\` ORDER BY score DESC, h.\`key\` LIMIT ?) best
    JOIN agent_longterm_records r ON r.entity_id = ? AND r.\`key\` = best.\`key\`
    ORDER BY best.score DESC, best.\`key\``;
}
