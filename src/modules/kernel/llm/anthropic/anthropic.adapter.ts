import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
  TokenSink,
} from '../../interfaces/llm.interface.js';
import { type LlmHttpSettings, postJson, readJson, withRetries } from '../http/llm-http-client.js';
import { DEFAULT_RETRY_POLICY } from '../http/retry-policy.js';
import type { AnthropicLlmOptions } from '../llm-options.js';
import { readAnthropicStream } from './anthropic-stream.js';
import {
  fromAnthropicMessage,
  toAnthropicRequest,
  toAnthropicToolChoice,
  toAnthropicTools,
} from './anthropic.wire.js';

/** The default Messages API endpoint. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/**
 * Adapter for Anthropic's Messages API (`/v1/messages`): separate system prompt, `tool_use` /
 * `tool_result` blocks, streaming, and the same timeouts, retries and errors as the OpenAI adapter.
 */
export class AnthropicLlmAdapter implements LlmAdapter {
  private readonly settings: LlmHttpSettings;
  private readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly options: AnthropicLlmOptions,
    env: Record<string, string | undefined> = process.env,
  ) {
    const baseUrl = options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL;
    const apiKey = options.apiKey ?? env.ANTHROPIC_API_KEY;
    this.url = `${baseUrl.replace(/\/+$/, '')}/v1/messages`;
    this.headers = {
      'anthropic-version': options.apiVersion ?? '2023-06-01',
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
    };
    this.settings = {
      provider: 'anthropic',
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    };
  }

  chat(request: LlmRequest): Promise<LlmResponse> {
    return withRetries(this.settings, request.signal, async (signal) => {
      const response = await postJson(
        this.settings,
        this.url,
        this.headers,
        this.body(request, false),
        signal,
      );
      return fromAnthropicMessage(await readJson(this.settings, response));
    });
  }

  stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse> {
    return withRetries(this.settings, request.signal, async (signal, markStarted) => {
      const response = await postJson(
        this.settings,
        this.url,
        this.headers,
        this.body(request, true),
        signal,
      );
      if (!response.body) return fromAnthropicMessage(await readJson(this.settings, response));
      return readAnthropicStream(response.body, onToken, markStarted);
    });
  }

  private body(request: LlmRequest, stream: boolean): Record<string, unknown> {
    const { model, temperature, maxTokens } = this.options;
    return {
      model,
      max_tokens: maxTokens ?? 1024,
      ...toAnthropicRequest(request.messages),
      ...(request.tools?.length ? { tools: toAnthropicTools(request.tools) } : {}),
      ...(request.toolChoice && request.tools?.length
        ? { tool_choice: toAnthropicToolChoice(request.toolChoice) }
        : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(stream ? { stream: true } : {}),
    };
  }
}
