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
   * How many of the fused list's best hits the model scores (default 50, at least `k`, at most
   * 100): the hits below that depth are not recalled when a rerank runs.
   */
  depth?: number;
  /**
   * The model's share of a hit's final score, from 0 to 1 (default 0.5); the rest is its fused
   * score from the lists (divided by the best hit's). 1 orders by the model alone.
   */
  weight?: number;
}

/** Default `recall.rerank.depth`. */
export const DEFAULT_RERANK_DEPTH = 50;
/** Default `recall.rerank.weight`. */
export const DEFAULT_RERANK_WEIGHT = 0.5;
