import { createHash } from 'node:crypto';
import type { EmbeddingModel } from './embedding-model.interface.js';

/** Texts per call when the model sets no limit. */
const DEFAULT_BATCH = 64;

/** The model answered something other than one finite vector per text, all of one size. */
export class EmbeddingResponseError extends Error {
  constructor(modelId: string, problem: string) {
    super(`Embedding model ${modelId}: ${problem}`);
    this.name = 'EmbeddingResponseError';
  }
}

/**
 * One vector per text, in order: blank texts get `[]` (nothing to embed) without a call, and so
 * does a text the model answers with all zeros (no direction to compare); the rest
 * go in batches of the model's `maxBatchSize`. Each number is rounded to float32, as it is stored,
 * so a vector that went through the run cache (JSON) is stored byte for byte as computed.
 */
export async function embedTexts(
  model: EmbeddingModel,
  texts: readonly string[],
  abortSignal?: AbortSignal,
): Promise<number[][]> {
  const vectors: number[][] = texts.map(() => []);
  const todo = texts.flatMap((text, i) => (text.trim() === '' ? [] : [i]));
  const batch = model.maxBatchSize && model.maxBatchSize > 0 ? model.maxBatchSize : DEFAULT_BATCH;
  let dimensions: number | undefined;
  for (let at = 0; at < todo.length; at += batch) {
    const indexes = todo.slice(at, at + batch);
    const answer = await model.embed(
      indexes.map((i) => texts[i]!),
      abortSignal ? { abortSignal } : undefined,
    );
    if (!Array.isArray(answer) || answer.length !== indexes.length)
      throw new EmbeddingResponseError(
        model.id,
        `asked for ${indexes.length} vectors, got ${Array.isArray(answer) ? answer.length : typeof answer}`,
      );
    answer.forEach((vector, j) => {
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every(Number.isFinite))
        throw new EmbeddingResponseError(
          model.id,
          'a vector is not a non-empty array of finite numbers',
        );
      dimensions ??= vector.length;
      if (vector.length !== dimensions)
        throw new EmbeddingResponseError(
          model.id,
          `vectors of ${dimensions} and ${vector.length} dimensions in one answer`,
        );
      const rounded = vector.map(Math.fround);
      // All zeros has no direction (a text with no word the model knows): nothing to store.
      vectors[indexes[j]!] = rounded.some((x) => x !== 0) ? rounded : [];
    });
  }
  return vectors;
}

/** A short digest of a model and texts: the run-cache key of their vectors. */
export function embeddingCacheKey(modelId: string, texts: readonly string[]): string {
  const hash = createHash('sha256').update(modelId);
  for (const text of texts) hash.update('\u0000').update(text);
  return `longterm:embeddings:${hash.digest('base64url').slice(0, 22)}`;
}

/** A run cache's step: `compute` once per key, its recorded value on every later call. */
export type CachedStep = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

/**
 * `embedTexts` with the model, through `cachedStep` when given (keyed by the model and the texts:
 * a retried run replays the vectors it recorded instead of calling the model again).
 */
export function cachedEmbedding(
  model: EmbeddingModel,
  cachedStep?: CachedStep,
): (texts: string[]) => Promise<number[][]> {
  return (texts) => {
    const compute = () => embedTexts(model, texts);
    return cachedStep ? cachedStep(embeddingCacheKey(model.id, texts), compute) : compute();
  };
}
