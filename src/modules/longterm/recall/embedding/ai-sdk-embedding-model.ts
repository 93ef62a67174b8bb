import { fetchWithoutRedirects } from '../../../../common/fetch-without-redirects.js';
import { loadOptionalDependency } from '../../../../common/load-optional-dependency.js';
import type { EmbeddingModel } from './embedding-model.interface.js';

/**
 * The part of an AI SDK embedding model (provider specification v2, v3 or v4: AI SDK 5, 6 or 7's
 * providers) that recall uses.
 */
export interface AiSdkEmbeddingModelLike {
  readonly specificationVersion: 'v2' | 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly maxEmbeddingsPerCall: PromiseLike<number | undefined> | number | undefined;
  /** Embeds `values`, one vector each, in order. */
  doEmbed(options: {
    values: string[];
    abortSignal?: AbortSignal;
  }): PromiseLike<{ embeddings: Array<number[]> }>;
}

/**
 * Any AI SDK embedding model as recall's `EmbeddingModel` (its id: `provider:modelId`), batches cut
 * at the model's `maxEmbeddingsPerCall`.
 */
export async function aiSdkEmbeddingModel(model: AiSdkEmbeddingModelLike): Promise<EmbeddingModel> {
  if (
    typeof model !== 'object' ||
    model === null ||
    !['v2', 'v3', 'v4'].includes(model.specificationVersion) ||
    typeof model.doEmbed !== 'function'
  )
    throw new TypeError(
      'embedder must be an AI SDK embedding model (specification v2, v3 or v4, e.g. openai.embedding(id)) or an EmbeddingModel',
    );
  const maxBatchSize = (await model.maxEmbeddingsPerCall) ?? undefined;
  return {
    id: `${model.provider}:${model.modelId}`,
    ...(maxBatchSize ? { maxBatchSize } : {}),
    embed: async (texts, options = {}) =>
      (
        await model.doEmbed({
          values: texts,
          ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
        })
      ).embeddings,
  };
}

/** `embedder: { provider: 'openai-compatible', … }`: a `/v1/embeddings` endpoint. */
export interface OpenAiCompatibleEmbedderOptions {
  provider: 'openai-compatible';
  /** The API's base URL, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  /** The embedding model's name on that server. */
  model: string;
  /** Bearer key (default: none). */
  apiKey?: string;
}

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint through `@ai-sdk/openai-compatible` (an optional
 * peer, loaded only when configured); redirects are refused, so the key never leaves the origin.
 */
export async function openAiCompatibleEmbedder(
  options: OpenAiCompatibleEmbedderOptions,
): Promise<EmbeddingModel> {
  const { createOpenAICompatible } = await loadOptionalDependency<{
    createOpenAICompatible: (settings: Record<string, unknown>) => {
      embeddingModel(id: string): AiSdkEmbeddingModelLike;
    };
  }>('@ai-sdk/openai-compatible', "recall: { embedder: { provider: 'openai-compatible' } }");
  const provider = createOpenAICompatible({
    name: 'openai-compatible',
    baseURL: options.baseUrl.replace(/\/+$/, ''),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    fetch: fetchWithoutRedirects,
  });
  return aiSdkEmbeddingModel(provider.embeddingModel(options.model));
}
