import type { EntityManager } from 'typeorm';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { NEVER_EXPIRES, columnText } from './sql-row-format.js';

/**
 * One row of `agent_longterm_terms`: entity, term, key, how often the term occurs, the record's
 * number of distinct terms, and the record's expiry (so a search filters and ranks without reading
 * the records; a search by update time reads them).
 */
export type TermRow = [
  entityId: string,
  term: string,
  key: string,
  tf: number,
  length: number,
  expiresAt: number,
];

/**
 * Term rows per `INSERT` (six parameters each): a statement of the longest terms and keys stays
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
 * Brings the terms of the applied records (from `appliedRows`) up to date in the write's
 * transaction. Their stored terms are read first, locked as a delete would lock them. A record
 * whose terms did not change (a record saved again with its text) costs no write, or one `UPDATE`
 * of its expiry when only that changed; any other record's terms are replaced — also for a
 * tombstone, and with text search off (a save's text is then empty), so no record is found by words
 * it no longer holds.
 */
export async function updateTerms(
  manager: EntityManager,
  applied: Map<string, PreparedRecord>,
): Promise<void> {
  if (applied.size === 0) return;
  const stored = await storedTerms(manager, [...applied.values()]);
  const replaced: PreparedRecord[] = [];
  const inserted: TermRow[] = [];
  const expiries = new Map<string, { entityId: string; expiresAt: number; keys: string[] }>();
  for (const [id, record] of applied) {
    const fresh = record.text ? termRows(record, record.text) : [];
    const old = stored.get(id);
    if (old === undefined) {
      for (const row of fresh) inserted.push(row);
    } else if (!sameTerms(old, fresh)) {
      replaced.push(record);
      for (const row of fresh) inserted.push(row);
    } else if (fresh.length > 0 && old.expiresAt !== (record.expiresAt ?? NEVER_EXPIRES)) {
      const expiresAt = record.expiresAt ?? NEVER_EXPIRES;
      const group = JSON.stringify([record.entityId, expiresAt]);
      const keys = expiries.get(group)?.keys;
      if (keys) keys.push(record.key);
      else expiries.set(group, { entityId: record.entityId, expiresAt, keys: [record.key] });
    }
  }
  await deleteRecordRows(manager, 'agent_longterm_terms', replaced);
  for (const { entityId, expiresAt, keys } of expiries.values()) {
    await manager.query(
      `UPDATE agent_longterm_terms SET expires_at = ?
        WHERE entity_id = ? AND \`key\` IN (${keys.map(() => '?').join(', ')})`,
      [expiresAt, entityId, ...keys],
    );
  }
  for (let start = 0; start < inserted.length; start += ROWS_PER_INSERT) {
    const part = inserted.slice(start, start + ROWS_PER_INSERT);
    await manager.query(
      `INSERT INTO agent_longterm_terms (entity_id, term, \`key\`, tf, length, expires_at)
        VALUES ${part.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      part.flat(),
    );
  }
}

/** A record's stored terms: each term's count, the record's length and expiry as its rows hold them. */
interface StoredTerms {
  counts: Map<string, number>;
  /** The first row's; `NaN` when its rows disagree (then they are replaced). */
  length: number;
  expiresAt: number;
}

/**
 * The stored terms of `records`, by `[entity, key]` JSON (a record without terms is absent): one
 * `SELECT … FOR UPDATE` per entity, a range read of the primary key per key.
 */
async function storedTerms(
  manager: EntityManager,
  records: PreparedRecord[],
): Promise<Map<string, StoredTerms>> {
  const stored = new Map<string, StoredTerms>();
  for (const [entityId, keys] of keysByEntity(records)) {
    const rows = (await manager.query(
      `SELECT \`key\`, term, tf, length, expires_at FROM agent_longterm_terms
        WHERE entity_id = ? AND \`key\` IN (${keys.map(() => '?').join(', ')}) FOR UPDATE`,
      [entityId, ...keys],
    )) as Array<{ key: unknown; term: unknown; tf: unknown; length: unknown; expires_at: unknown }>;
    for (const row of rows) {
      const id = JSON.stringify([entityId, columnText(row.key)]);
      const length = Number(row.length);
      const expiresAt = Number(row.expires_at);
      const terms = stored.get(id);
      if (terms === undefined) {
        stored.set(id, {
          counts: new Map([[columnText(row.term), Number(row.tf)]]),
          length,
          expiresAt,
        });
        continue;
      }
      terms.counts.set(columnText(row.term), Number(row.tf));
      if (terms.length !== length || terms.expiresAt !== expiresAt) terms.length = NaN;
    }
  }
  return stored;
}

/** Whether a record's stored terms are exactly `fresh` (counts and length; the expiry aside). */
function sameTerms(old: StoredTerms, fresh: TermRow[]): boolean {
  // Every fresh row holds the record's length: the first one's stands for all.
  if (old.counts.size !== fresh.length || old.length !== fresh[0]?.[4]) return false;
  return fresh.every(([, term, , tf]) => old.counts.get(term) === tf);
}

/** The keys of `records` per entity, in order. */
function keysByEntity(records: Array<{ entityId: string; key: string }>): Map<string, string[]> {
  const byEntity = new Map<string, string[]>();
  for (const { entityId, key } of records) {
    const keys = byEntity.get(entityId);
    if (keys) keys.push(key);
    else byEntity.set(entityId, [key]);
  }
  return byEntity;
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
  for (const [entityId, keys] of keysByEntity(records)) {
    await manager.query(
      `DELETE FROM ${table} WHERE entity_id = ? AND \`key\` IN (${keys.map(() => '?').join(', ')})`,
      [entityId, ...keys],
    );
  }
}

/**
 * The MariaDB text search over `agent_longterm_terms`, for `words` query words; `byTime` when the
 * search filters by update time. Parameters: lower, upper ×2 (or NULL), with `byTime` updatedFrom and
 * updatedTo, the entity's record count if known (else NULL: counted here and returned as `n`),
 * entity, now, entity, the words, now, limit, entity.
 *
 * BM25 (k1 1.2, b 0.75) over the entity's live records, as on PostgreSQL, in one pass over the
 * query words' postings: the index (entity, term, count, length, expiry; the key rides along as the
 * primary key's) gives each word's rows in one range read, none of the table's read — but for a
 * search by update time, which reads each posting's record for it (a term row holds no update time,
 * so saving a record again with its text writes no term). Arithmetic in doubles (`1e0`), not
 * MariaDB's decimals. Every live record holding a word is among them, so its document frequency is
 * counted there, whatever the key and time filters, which only decide which records may be
 * answered; the average length is the matched records'. Only the best `limit` records are read.
 */
export function termMatchesSql(words: number, byTime: boolean): string {
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
            t.\`key\` >= ? AND (? IS NULL OR t.\`key\` < ?)
              ${byTime ? 'AND w.updated_at >= ? AND w.updated_at < ?' : ''} AS wanted,
            COUNT(*) OVER (PARTITION BY t.term) * 1e0 AS df,
            COUNT(*) OVER (PARTITION BY t.\`key\`) * 1e0 AS k
          FROM agent_longterm_terms t FORCE INDEX (idx_agent_longterm_terms_search)
          ${byTime ? 'JOIN agent_longterm_records w ON w.entity_id = t.entity_id AND w.`key` = t.`key`' : ''}
          JOIN (SELECT COALESCE(?, (SELECT COUNT(*) FROM agent_longterm_records
            WHERE entity_id = ? AND value <> '' AND expires_at > ?)) AS n) n
          WHERE t.entity_id = ? AND t.term IN (${Array(words).fill('?').join(', ')})
            AND t.expires_at > ?) p) h
      WHERE h.wanted
      GROUP BY h.\`key\` ORDER BY score DESC, h.\`key\` LIMIT ?) best
    JOIN agent_longterm_records r ON r.entity_id = ? AND r.\`key\` = best.\`key\`
    ORDER BY best.score DESC, best.\`key\``;
}
