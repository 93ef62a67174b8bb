import type { LongtermRecord } from '../interfaces/longterm-store.interface.js';

/** Which filters narrow a recall (all optional; together they must all hold). */
export interface RecallFilter {
  /** Only records whose key starts with it (literally, case-sensitively). */
  prefix?: string;
  /** Only records updated at or after this time (epoch ms). */
  updatedFrom?: number;
  /** Only records updated before this time (epoch ms). */
  updatedTo?: number;
}

/** Options of `LongtermMemoryService.recall`. */
export interface RecallOptions {
  /** Most hits (default 10, at most 100). */
  k?: number;
  filter?: RecallFilter;
  /**
   * Which lists to run: `hybrid` (default) fuses the full-text list with the vector list when an
   * embedder is configured (else it is the full-text list alone); `lexical` or `vector` runs one.
   */
  mode?: RecallMode;
}

/** The lists a recall runs. */
export type RecallMode = 'hybrid' | 'lexical' | 'vector';

/** Where a hit stood in one of the ranked lists that were fused, and its score there. */
export interface RecallRank {
  /** 1-based rank in that list. */
  rank: number;
  /** The list's own score (lexical: the backend's BM25 or relevance; vector: cosine similarity). */
  score: number;
}

/** One thing recalled: a long-term record, with how it was found. */
export interface RecallHit {
  /** What was found: a long-term record. */
  source: 'record';
  record: LongtermRecord;
  /**
   * The fused score (reciprocal rank fusion: the sum over the lists that found it of
   * 1 / (60 + rank)); higher is better.
   */
  score: number;
  /** Its place in the lexical (full-text) list, when that list found it. */
  lexical?: RecallRank;
  /** Its place in the vector list (score: cosine similarity), when that list found it. */
  vector?: RecallRank;
}
