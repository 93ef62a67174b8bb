import { registerAs } from '@nestjs/config';
import type { LlmOptions } from 'nest-agent-memory';
import { type Env, readChoice, readOptionalInteger, readString, readUrl, required } from './env.js';

/** The model providers the example app can be configured with. */
export const LLM_PROVIDERS = ['openai', 'anthropic', 'openai-compatible', 'echo'] as const;

/** `LLM_MODEL`'s default for `openai`. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

/** The model settings of the example app. */
export interface LlmConfig {
  /** The agent's `llm` option. */
  options: LlmOptions;
  /**
   * True when the offline echo model stands in because nothing named a model (no `LLM_PROVIDER`,
   * `OPENAI_BASE_URL` or `OPENAI_API_KEY`): the app warns about it at startup.
   */
  echoByDefault: boolean;
}

/**
 * Builds the agent's model options from `LLM_PROVIDER` (`openai` when `OPENAI_BASE_URL` or
 * `OPENAI_API_KEY` is set, else `echo`), `LLM_MODEL` (`gpt-4o-mini` for openai; required for
 * anthropic), `OPENAI_BASE_URL`, `OPENAI_API_KEY` (required for api.openai.com),
 * `ANTHROPIC_API_KEY` (required for anthropic), `LLM_BASE_URL` (required for openai-compatible:
 * Ollama, vLLM, LM Studio, …, with `LLM_MODEL` required and `LLM_API_KEY` optional),
 * `LLM_TIMEOUT_MS` (the adapter's 60 s) and
 * `LLM_MAX_RETRIES` (the adapter's 2 retries of 408/429/5xx and dropped connections).
 */
export function loadLlmConfig(env: Env = process.env): LlmConfig {
  const baseUrl = readUrl(env, 'OPENAI_BASE_URL', ['http:', 'https:']);
  const openAiKey = readString(env, 'OPENAI_API_KEY');
  const chosen = readString(env, 'LLM_PROVIDER') !== undefined;
  const fallback = baseUrl !== undefined || openAiKey !== undefined ? 'openai' : 'echo';
  const provider = readChoice(env, 'LLM_PROVIDER', LLM_PROVIDERS, fallback);
  if (provider === 'echo') {
    return { options: { provider }, echoByDefault: !chosen };
  }
  const timeoutMs = readOptionalInteger(env, 'LLM_TIMEOUT_MS', 1, 3_600_000);
  const maxRetries = readOptionalInteger(env, 'LLM_MAX_RETRIES', 0, 10);
  const http = {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { retry: { maxRetries } }),
  };
  if (provider === 'openai-compatible') {
    const because = 'when LLM_PROVIDER=openai-compatible';
    const llmBaseUrl = required(
      readUrl(env, 'LLM_BASE_URL', ['http:', 'https:']),
      'LLM_BASE_URL',
      because,
    );
    const model = required(readString(env, 'LLM_MODEL'), 'LLM_MODEL', because);
    const apiKey = readString(env, 'LLM_API_KEY');
    return {
      options: {
        provider,
        baseUrl: llmBaseUrl,
        model,
        ...(apiKey === undefined ? {} : { apiKey }),
        ...http,
      },
      echoByDefault: false,
    };
  }
  if (provider === 'anthropic') {
    const because = 'when LLM_PROVIDER=anthropic';
    const model = required(readString(env, 'LLM_MODEL'), 'LLM_MODEL', because);
    const apiKey = required(readString(env, 'ANTHROPIC_API_KEY'), 'ANTHROPIC_API_KEY', because);
    return { options: { provider, model, apiKey, ...http }, echoByDefault: false };
  }
  if (baseUrl === undefined)
    required(openAiKey, 'OPENAI_API_KEY', 'when LLM_PROVIDER=openai and OPENAI_BASE_URL is unset');
  return {
    options: {
      provider,
      model: readString(env, 'LLM_MODEL') ?? DEFAULT_OPENAI_MODEL,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(openAiKey === undefined ? {} : { apiKey: openAiKey }),
      ...http,
    },
    echoByDefault: false,
  };
}

/** The `llm` config namespace. */
export const llmConfig = registerAs('llm', () => loadLlmConfig());
