import { HashingEmbeddingModel, type LongtermRecallOptions } from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readChoice, readString, readUrl } from './env.js';

/** The embedders `RECALL_EMBEDDER` names. */
export const RECALL_EMBEDDERS = ['off', 'hashing', 'openai-compatible'] as const;

/**
 * Recall's vector list from `RECALL_EMBEDDER`: `off` (default: full-text recall alone), `hashing`
 * (the offline `HashingEmbeddingModel` — for demos: not a semantic model), or `openai-compatible`
 * (`RECALL_EMBEDDER_URL`, `RECALL_EMBEDDER_MODEL`, optional `RECALL_EMBEDDER_API_KEY`).
 */
export function loadRecallConfig(env: Env): LongtermRecallOptions | undefined {
  const embedder = readChoice(env, 'RECALL_EMBEDDER', RECALL_EMBEDDERS, 'off');
  if (embedder === 'off') return undefined;
  if (embedder === 'hashing') return { embedder: new HashingEmbeddingModel() };
  const baseUrl = readUrl(env, 'RECALL_EMBEDDER_URL', ['http:', 'https:']);
  const model = readString(env, 'RECALL_EMBEDDER_MODEL');
  if (!baseUrl)
    throw new ConfigValidationError(
      'RECALL_EMBEDDER_URL',
      'is required with RECALL_EMBEDDER=openai-compatible',
    );
  if (!model)
    throw new ConfigValidationError(
      'RECALL_EMBEDDER_MODEL',
      'is required with RECALL_EMBEDDER=openai-compatible',
    );
  const apiKey = readString(env, 'RECALL_EMBEDDER_API_KEY');
  return {
    embedder: { provider: 'openai-compatible', baseUrl, model, ...(apiKey ? { apiKey } : {}) },
  };
}
