import type { RetryPolicy } from './http/retry-policy.js';

/** Settings every HTTP adapter accepts. */
export interface HttpLlmOptions {
  /** The model name sent to the provider. */
  model: string;
  /**
   * Per-attempt timeout (default 60 s). A streamed answer is bound by it only until its response
   * arrives; after that by `streamIdleTimeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Longest silence between two chunks of a streamed answer (default: `timeoutMs`), so a long
   * generation that keeps streaming is never cut off, and a stalled one is.
   */
  streamIdleTimeoutMs?: number;
  /** Retries on 408/429/5xx/connection errors (default: 2 retries, 500 ms doubling). */
  retry?: Partial<RetryPolicy>;
  /** Sampling temperature, if set. */
  temperature?: number;
  /** Cap on generated tokens, if set (Anthropic requires one: default 1024). */
  maxTokens?: number;
}

/**
 * Any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, Ollama, LM Studio, …).
 * `baseUrl` and `apiKey` default to `OPENAI_BASE_URL` (else `https://api.openai.com/v1`) and
 * `OPENAI_API_KEY`, read when the adapter is created.
 */
export interface OpenAiLlmOptions extends HttpLlmOptions {
  provider: 'openai';
  baseUrl?: string;
  apiKey?: string;
}

/** Anthropic's Messages API. `apiKey` defaults to `ANTHROPIC_API_KEY`. */
export interface AnthropicLlmOptions extends HttpLlmOptions {
  provider: 'anthropic';
  baseUrl?: string;
  apiKey?: string;
  /** `anthropic-version` header (default `2023-06-01`). */
  apiVersion?: string;
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

/** The `llm` option of `KernelModule.forRoot`: a built-in provider's settings. */
export type LlmOptions = OpenAiLlmOptions | AnthropicLlmOptions | EchoLlmOptions;
