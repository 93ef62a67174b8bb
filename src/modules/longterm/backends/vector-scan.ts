import { compareCodePoints } from '../../../common/canonical-json.js';
import { dot, unpackEmbedding } from '../recall/embedding/embedding-bytes.js';
import { TopK } from '../recall/top-k.js';
import type { VectorMatch } from '../recall/vector-match.js';
import type { ScoredRow, StoredRow } from './stored-row.js';

/** A vector an exact scan ranks: the key of its row, and the packed vector. No value. */
export interface VectorCandidate {
  key: string;
  embedding: Uint8Array;
}

/** Loads the live rows of some keys of the entity (a key whose row is gone is left out). */
export type LoadRows = (keys: string[]) => Promise<StoredRow[]>;

/**
 * The exact nearest-neighbour search over an entity's vectors: every candidate is scored from its
 * vector alone, then only the best ones' rows are loaded — so a search's cost grows with the number
 * of vectors, never with the bytes of the values. A loaded row is kept while it is live and within
 * the search's key and time filters (a backend whose scan cannot apply them all leaves them to this
 * check); a candidate whose row went (or changed out of the filters) since the scan makes room for
 * the next best, read in batches that double, so a search makes few round trips even then.
 * Best first, ties by key.
 */
export async function nearestRows(
  match: VectorMatch,
  candidates: Iterable<VectorCandidate>,
  load: LoadRows,
): Promise<ScoredRow[]> {
  const scored: Array<{ key: string; score: number }> = [];
  const best = new TopK<string>(match.limit, compareCodePoints);
  for (const { key, embedding } of candidates) {
    const stored = unpackEmbedding(embedding);
    // A vector of another dimension is not comparable: never a hit.
    if (stored.length !== match.vector.length) continue;
    const score = dot(match.vector, stored);
    scored.push({ key, score });
    best.offer(key, score);
  }
  const first = best.sorted().map(({ item, score }) => ({ key: item, score }));
  const hits = await loadHits(match, first, load);
  if (hits.length === match.limit || first.length === scored.length) return hits;
  // Some of the best were gone: the rest, best first, until the page is full.
  const tried = new Set(first.map((candidate) => candidate.key));
  const rest = scored
    .filter((candidate) => !tried.has(candidate.key))
    .sort((a, b) => b.score - a.score || compareCodePoints(a.key, b.key));
  for (let at = 0, size = 2 * match.limit; at < rest.length && hits.length < match.limit;) {
    const batch = rest.slice(at, at + size);
    at += batch.length;
    size *= 2;
    for (const hit of await loadHits(match, batch, load)) {
      if (hits.length === match.limit) break;
      hits.push(hit);
    }
  }
  return hits;
}

/** The rows of `candidates` that are live and within the filters, in the candidates' order. */
async function loadHits(
  match: VectorMatch,
  candidates: Array<{ key: string; score: number }>,
  load: LoadRows,
): Promise<ScoredRow[]> {
  if (candidates.length === 0) return [];
  const rows = new Map(
    (await load(candidates.map((candidate) => candidate.key))).map((row) => [row.key, row]),
  );
  const hits: ScoredRow[] = [];
  for (const { key, score } of candidates) {
    const row = rows.get(key);
    if (row && inFilters(row, match)) hits.push({ ...row, score });
  }
  return hits;
}

function inFilters(row: StoredRow, match: VectorMatch): boolean {
  return (
    compareCodePoints(row.key, match.lower) >= 0 &&
    (match.upper === undefined || compareCodePoints(row.key, match.upper) < 0) &&
    row.updatedAt >= match.updatedFrom &&
    row.updatedAt < match.updatedTo
  );
}
