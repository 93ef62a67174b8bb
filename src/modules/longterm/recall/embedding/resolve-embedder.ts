import { InvalidModuleOptionsError } from '../../../../common/errors/invalid-module-options.error.js';
import { assertKnownOptionKeys } from '../../../../common/options/known-option-keys.js';
import {
  type AiSdkEmbeddingModelLike,
  type OpenAiCompatibleEmbedderOptions,
  aiSdkEmbeddingModel,
  openAiCompatibleEmbedder,
} from './ai-sdk-embedding-model.js';
import type { EmbeddingModel } from './embedding-model.interface.js';
import { assertModelId } from './embedding-bytes.js';

const ENDPOINT_KEYS = ['provider', 'baseUrl', 'model', 'apiKey'] as const;

/** What `recall.embedder` takes: our port, any AI SDK embedding model, or an endpoint to call. */
export type EmbedderOption =
  EmbeddingModel | AiSdkEmbeddingModelLike | OpenAiCompatibleEmbedderOptions;

/** The configured embedder as an `EmbeddingModel`, or `undefined` when none is (lexical only). */
export async function resolveEmbedder(
  option: EmbedderOption | undefined,
): Promise<EmbeddingModel | undefined> {
  if (option === undefined) return undefined;
  const fail = (problem: string): never => {
    throw new InvalidModuleOptionsError('LongtermMemoryModule', 'recall.embedder', problem);
  };
  if (typeof option !== 'object' || option === null) return fail('must be an object');
  if ('provider' in option && (option as { provider: unknown }).provider === 'openai-compatible') {
    const endpoint = option as OpenAiCompatibleEmbedderOptions;
    assertKnownOptionKeys('LongtermMemoryModule', endpoint, ENDPOINT_KEYS, 'recall.embedder.');
    if (typeof endpoint.baseUrl !== 'string' || !/^https?:\/\//.test(endpoint.baseUrl))
      fail('baseUrl must be an http(s) URL');
    if (typeof endpoint.model !== 'string' || endpoint.model === '')
      fail('model must be a model name');
    return openAiCompatibleEmbedder(endpoint);
  }
  if ('specificationVersion' in option) {
    try {
      return await aiSdkEmbeddingModel(option);
    } catch (error) {
      return fail((error as Error).message);
    }
  }
  const port = option as EmbeddingModel;
  if (typeof port.embed !== 'function')
    return fail(
      "must be an EmbeddingModel ({ id, embed }), an AI SDK embedding model, or { provider: 'openai-compatible', baseUrl, model }",
    );
  try {
    assertModelId(port.id, 'id');
  } catch {
    fail('id must be a non-empty string of at most 255 UTF-8 bytes');
  }
  return port;
}
