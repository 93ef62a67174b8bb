import type { LongtermRecord } from '../interfaces/longterm-store.interface.js';
import type { IndexedMessage } from './message-index.js';

/** Which filters narrow a recall (all optional; together they must all hold). */
export interface RecallFilter {
  /** Only records whose key starts with it (literally, case-sensitively). */
  prefix?: string;
  /** Only records updated at or after this time (epoch ms). */
  updatedFrom?: number;
  /** Only records updated before this time (epoch ms). */
  updatedTo?: number;
  /**
   * Only messages of this conversation. Records have no conversation: with this filter a recall
   * finds messages only (and a `records` recall is refused).
   */
  conversationId?: string;
}

/**
 * What a recall searches: the entity's long-term `records` (default), the `messages` of the
 * conversations it took part in (indexed by an agent with `recall.messages`), or `all` of both.
 */
export type RecallScope = 'records' | 'messages' | 'all';

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
  /** What is searched (default `records`). */
  scope?: RecallScope;
  /**
   * Messages only: how much a message hit's neighbours in its conversation (the messages just
   * before and after it, when they match too) add to its full-text score before the lists are
   * fused — a share from 0 (none) to 1; default 0.3. Records have no order and are not reranked.
   */
  neighbours?: number;
  /**
   * Whether the reranking model configured with `recall.rerank` reorders the hits (default true;
   * without one configured, nothing to turn on).
   */
  rerank?: boolean;
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

/** How a hit was found: its fused score and its place in each list. */
export interface RecallRanking {
  /**
   * The fused score (reciprocal rank fusion: the sum over the lists that found it of
   * 1 / (60 + rank)); when `rerank` is present, the final score from 0 to 1 (the model's share plus
   * the fused score's). Higher is better.
   */
  score: number;
  /** Its place in the lexical (full-text) list, when that list found it. */
  lexical?: RecallRank;
  /** Its place in the vector list (score: cosine similarity), when that list found it. */
  vector?: RecallRank;
  /** Its place in the reranking model's order (score: the model's own), when a rerank ran. */
  rerank?: RecallRank;
}

/** A long-term record recalled. */
export interface RecordRecallHit extends RecallRanking {
  source: 'record';
  record: LongtermRecord;
}

/** A message recalled: where it is (conversation, position, id), who said it, and its text. */
export interface MessageRecallHit extends RecallRanking {
  source: 'message';
  message: IndexedMessage & {
    /** When its turn's run was created (epoch ms). */
    at: number;
  };
}

/** One thing recalled: a long-term record or a message, with how it was found. */
export type RecallHit = RecordRecallHit | MessageRecallHit;
