/**
 * A text embedding model: the port recall's vector list runs on. Any AI SDK embedding model fits
 * through `aiSdkEmbeddingModel`; `HashingEmbeddingModel` is an offline stand-in for tests and demos.
 */
export interface EmbeddingModel {
  /**
   * The model's stable name, stored with every vector it made (at most 255 UTF-8 bytes): vectors of
   * another id are never compared with this model's, and are re-embedded in the background.
   */
  readonly id: string;
  /** Most texts per `embed` call (default: no limit). */
  readonly maxBatchSize?: number;
  /** One vector per text, in order, all of one dimension. */
  embed(texts: string[], options?: { abortSignal?: AbortSignal }): Promise<number[][]>;
}

/** Most dimensions of a stored vector. */
export const MAX_EMBEDDING_DIMENSIONS = 4_096;
