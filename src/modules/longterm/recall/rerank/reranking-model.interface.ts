/**
 * A model that scores how well each of a few documents answers a query: the port of recall's
 * rerank step. Any AI SDK reranking model fits through `aiSdkRerankingModel`;
 * `WordVectorRerankingModel` runs offline on pre-trained word vectors.
 */
export interface RerankingModel {
  /** The model's name, in logs. */
  readonly id: string;
  /**
   * One relevance score per document, in the documents' order; higher is more relevant. Any
   * scale: recall rescales the scores of one call to 0–1 (lowest to highest) before it weighs them.
   */
  rerank(
    query: string,
    documents: string[],
    options?: { abortSignal?: AbortSignal },
  ): Promise<number[]>;
}

/** `LongtermMemoryModule.forRoot({ recall: { rerank } })`: a second look at recall's best hits. */
export interface RecallRerankOptions {
  /** The model that scores the hits against the query. */
  model: RerankingModel;
  /**
   * How many of the fused list's best hits the model scores (default 50, at most 100); hits past
   * it (a `k` larger than `depth`) follow the scored ones in the fused order.
   */
  depth?: number;
  /**
   * The model's share of a hit's final score, from 0 to 1 (default 0.5); the rest is its fused
   * score from the lists (divided by the best hit's). 1 orders by the model alone.
   */
  weight?: number;
  /**
   * How long recall waits for the model (default 5,000 ms); past it, the call is aborted (its
   * `abortSignal`) and recall answers in the fused order, logged.
   */
  timeoutMs?: number;
}

/** Default `recall.rerank.depth`. */
export const DEFAULT_RERANK_DEPTH = 50;
/** Default `recall.rerank.weight`. */
export const DEFAULT_RERANK_WEIGHT = 0.5;
/** Default `recall.rerank.timeoutMs`. */
export const DEFAULT_RERANK_TIMEOUT_MS = 5_000;
