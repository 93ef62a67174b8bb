import type { RetryPolicy } from './retries/retry-policy.js';
import type { AiSdkLanguageModel } from './ai-sdk/ai-sdk-language-model.js';

/** How an adapter calls its model: deadlines, retries, sampling. */
export interface LlmCallSettings {
  /**
   * Per-attempt timeout (default 60 s). A streamed answer is bound by it only until its response
   * arrives; after that by `streamIdleTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Longest silence between two parts of a streamed answer (default: `timeoutMs`), so a long
   * generation that keeps streaming is never cut off, and a stalled one is.
   */
  streamIdleTimeoutMs?: number;
  /** Retries on 408/429/5xx/connection errors (default: 2 retries, 500 ms doubling). */
  retry?: Partial<RetryPolicy>;
  /** Sampling temperature, if set. */
  temperature?: number;
  /** Cap on generated tokens, if set (else the provider package's default for the model). */
  maxTokens?: number;
  /** Sent with every call as the AI SDK's `providerOptions` (e.g. `{ openai: { … } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** Settings of a built-in provider: the model's name and how to call it. */
export interface HttpLlmOptions extends LlmCallSettings {
  /** The model name sent to the provider. */
  model: string;
}

/**
 * OpenAI, or any OpenAI-compatible endpoint, through `@ai-sdk/openai` (install it).
 * `baseUrl` and `apiKey` default to `OPENAI_BASE_URL` (else `https://api.openai.com/v1`) and
 * `OPENAI_API_KEY`, read when the adapter is created. `api` picks Chat Completions (the default,
 * which every compatible server speaks) or OpenAI's Responses API.
 */
export interface OpenAiLlmOptions extends HttpLlmOptions {
  provider: 'openai';
  baseUrl?: string;
  apiKey?: string;
  api?: 'chat' | 'responses';
}

/**
 * Anthropic's Messages API through `@ai-sdk/anthropic` (install it). `apiKey` defaults to
 * `ANTHROPIC_API_KEY`; `baseUrl` is the API's origin (default `https://api.anthropic.com`), to
 * which `/v1/messages` is added.
 */
export interface AnthropicLlmOptions extends HttpLlmOptions {
  provider: 'anthropic';
  baseUrl?: string;
  apiKey?: string;
  /** `anthropic-version` header (default: the provider package's). */
  apiVersion?: string;
}

/**
 * Any server that speaks OpenAI's Chat Completions (Ollama, vLLM, LM Studio, llama.cpp, …) through
 * `@ai-sdk/openai-compatible` (install it). `baseUrl` is required (e.g.
 * `http://127.0.0.1:11434/v1`); `apiKey` is sent as a bearer token when set; `name` is the key of
 * its `providerOptions` (default `openai-compatible`).
 */
export interface OpenAiCompatibleLlmOptions extends HttpLlmOptions {
  provider: 'openai-compatible';
  baseUrl: string;
  apiKey?: string;
  name?: string;
}

/**
 * Any AI SDK language model you built yourself (`openai('gpt-4o')`, `bedrock(…)`, `ollama(…)`,
 * a wrapped model, …), specification v2, v3 or v4, with the adapter's call settings.
 */
export interface AiSdkModelOptions extends LlmCallSettings {
  model: AiSdkLanguageModel;
}

/** One scripted answer of the echo model. */
export interface EchoScriptStep {
  /** Text of the reply (default: the echo of the conversation). */
  content?: string;
  /** Tool calls to make; `arguments` may be an object (serialized) or JSON text. */
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string; id?: string }>;
}

/**
 * The offline, deterministic model. Without a script it echoes the last user message and what it
 * remembers of the conversation. `script` replays fixed answers in order (then falls back to
 * echoing).
 */
export interface EchoLlmOptions {
  provider: 'echo';
  script?: EchoScriptStep[];
  /**
   * Let a user message `/tool <name> <json>` make the model call that tool, then report its result
   * (default false). It hands every registered tool to whoever can send a message: turn it on for
   * demos and tests only.
   */
  toolCommands?: boolean;
}

/** The `llm` option of `KernelModule.forRoot`: a built-in provider's settings, or an AI SDK model. */
export type LlmOptions =
  | OpenAiLlmOptions
  | AnthropicLlmOptions
  | OpenAiCompatibleLlmOptions
  | EchoLlmOptions
  | AiSdkModelOptions;
