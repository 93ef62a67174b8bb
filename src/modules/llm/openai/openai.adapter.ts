import type { LlmRequest, LlmResponse, TokenSink } from '../interfaces/llm.interface.js';
import { HttpLlmAdapter } from '../http/http-llm.adapter.js';
import type { OpenAiLlmOptions } from '../llm-options.js';
import { readOpenAiStream } from './openai-stream.js';
import {
  fromOpenAiCompletion,
  toOpenAiMessages,
  toOpenAiToolChoice,
  toOpenAiTools,
} from './openai.wire.js';

/** The default endpoint when neither `baseUrl` nor `OPENAI_BASE_URL` is set. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * Adapter for any OpenAI-compatible `/chat/completions` endpoint: the wire format (messages, tools,
 * tool calls, usage), streaming with tool-call deltas, per-attempt timeouts, retries with backoff
 * on 408/429/5xx and connection errors (honouring `Retry-After`), cancellation by `AbortSignal`.
 */
export class OpenAiLlmAdapter extends HttpLlmAdapter {
  constructor(options: OpenAiLlmOptions, env: Record<string, string | undefined> = process.env) {
    const baseUrl = options.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL;
    const apiKey = options.apiKey ?? env.OPENAI_API_KEY;
    super(
      'openai',
      options,
      `${baseUrl.replace(/\/+$/, '')}/chat/completions`,
      apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    );
  }

  protected body(request: LlmRequest, stream: boolean): Record<string, unknown> {
    const { model, temperature, maxTokens } = this.sampling;
    return {
      model,
      messages: toOpenAiMessages(request.messages),
      ...(request.tools?.length ? { tools: toOpenAiTools(request.tools) } : {}),
      ...(request.toolChoice && request.tools?.length
        ? { tool_choice: toOpenAiToolChoice(request.toolChoice) }
        : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
  }

  protected parse(body: unknown): LlmResponse {
    return fromOpenAiCompletion(body);
  }

  protected readStream(
    body: ReadableStream<Uint8Array>,
    onToken: TokenSink,
    markStarted: () => void,
  ): Promise<LlmResponse> {
    return readOpenAiStream(body, onToken, markStarted);
  }
}
