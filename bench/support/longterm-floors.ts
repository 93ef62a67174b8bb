import pg from 'pg';
import { NEVER_EXPIRES } from '../../src/modules/longterm/backends/sql-row-format.js';
import { sortedKeys } from './write-path-floors.js';

/** A long-term row as the long-term benchmark writes it. */
export interface LongtermFloorRow {
  entityId: string;
  key: string;
  value: unknown;
  seq: number;
}

/**
 * Guarded PostgreSQL `saveMany` floor: hand-written with the raw driver, carrying the store's write
 * guarantees for a one-entity batch — the entity's erasure lock taken shared and its erasure mark
 * read once (rows at or below it refused), the seq guard in the upsert, canonical JSON values, the
 * text index written (each value's string leaves as lower-cased words with their positions), and
 * the applied keys returned — one statement, one round trip. It skips what the store does beyond
 * that (validation, expiry, embeddings, Unicode normalization), so it flatters the floor.
 */
export function postgresGuardedSaveMany(client: pg.Client) {
  return (rows: LongtermFloorRow[]) =>
    client.query({
      name: 'floor_guarded_upsert',
      text: `WITH g AS MATERIALIZED (
          SELECT pg_advisory_xact_lock_shared(1819568500, hashtext($1)),
            (SELECT seq FROM agent_longterm_records WHERE entity_id = $1 AND key = '') AS mark)
        INSERT INTO agent_longterm_records AS r
          (entity_id, key, value, seq, updated_at, expires_at, search_vector)
        SELECT $1, u.key, u.value, u.seq, 1, ${NEVER_EXPIRES}, u.words::tsvector
        FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) AS u(key, value, seq, words), g
        WHERE g.mark IS NULL OR u.seq > g.mark
        ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
          updated_at = excluded.updated_at, expires_at = excluded.expires_at,
          search_vector = excluded.search_vector
        WHERE excluded.seq >= r.seq
        RETURNING key`,
      values: [
        rows[0]!.entityId,
        rows.map((row) => row.key),
        rows.map((row) => JSON.stringify(sortedKeys(row.value))),
        rows.map((row) => row.seq),
        rows.map((row) => tsvectorOf(row.value)),
      ],
    });
}

/** The value's string leaves as a tsvector literal: `'word':position …` (first position kept). */
function tsvectorOf(value: unknown): string {
  const leaves: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') leaves.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  const positions = new Map<string, number>();
  leaves
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .forEach((word, i) => {
      if (word !== '' && !positions.has(word)) positions.set(word, i + 1);
    });
  return [...positions].map(([word, at]) => `'${word}':${at}`).join(' ');
}
