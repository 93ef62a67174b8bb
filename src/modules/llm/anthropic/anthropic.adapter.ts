import type { LlmRequest, LlmResponse, TokenSink } from '../interfaces/llm.interface.js';
import { HttpLlmAdapter } from '../http/http-llm.adapter.js';
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
export class AnthropicLlmAdapter extends HttpLlmAdapter {
  constructor(options: AnthropicLlmOptions, env: Record<string, string | undefined> = process.env) {
    const apiKey = options.apiKey ?? env.ANTHROPIC_API_KEY;
    super(
      'anthropic',
      options,
      `${(options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '')}/v1/messages`,
      {
        'anthropic-version': options.apiVersion ?? '2023-06-01',
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
      },
    );
  }

  protected body(request: LlmRequest, stream: boolean): Record<string, unknown> {
    const { model, temperature, maxTokens } = this.sampling;
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

  protected parse(body: unknown): LlmResponse {
    return fromAnthropicMessage(body);
  }

  protected readStream(
    body: ReadableStream<Uint8Array>,
    onToken: TokenSink,
    markStarted: () => void,
  ): Promise<LlmResponse> {
    return readAnthropicStream(body, onToken, markStarted);
  }
}
