import type { RerankingModel } from './reranking-model.interface.js';

/** The part of an AI SDK reranking model (provider specification v3 and later) that recall uses. */
export interface AiSdkRerankingModelLike {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  /** Ranks `documents.values` against `query`: each ranked document's index and its score. */
  doRerank(options: {
    documents: { type: 'text'; values: string[] };
    query: string;
    abortSignal?: AbortSignal;
  }): PromiseLike<{ ranking: Array<{ index: number; relevanceScore: number }> }>;
}

/**
 * Any AI SDK reranking model (e.g. `cohere.reranking('rerank-v3.5')`) as recall's
 * `RerankingModel` (its id: `provider:modelId`). A document the model leaves out of its ranking
 * scores `-Infinity` (recall counts it 0, below every ranked one).
 */
export function aiSdkRerankingModel(model: AiSdkRerankingModelLike): RerankingModel {
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.doRerank !== 'function' ||
    typeof model.modelId !== 'string'
  )
    throw new TypeError(
      'aiSdkRerankingModel needs an AI SDK reranking model (e.g. cohere.reranking(id))',
    );
  return {
    id: `${model.provider}:${model.modelId}`,
    rerank: async (query, documents, options = {}) => {
      const { ranking } = await model.doRerank({
        documents: { type: 'text', values: documents },
        query,
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      const ranked = ranking.filter(
        (entry) =>
          Number.isInteger(entry.index) &&
          entry.index >= 0 &&
          entry.index < documents.length &&
          Number.isFinite(entry.relevanceScore),
      );
      // A document the model did not rank is unscored: recall counts it 0 and ranks it last.
      const scores = documents.map(() => -Infinity);
      for (const { index, relevanceScore } of ranked) scores[index] = relevanceScore;
      return scores;
    },
  };
}
