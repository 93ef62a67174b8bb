import type {
  LlmAdapter,
  LlmInfo,
  LlmRequest,
  LlmResponse,
  TokenSink,
} from '../interfaces/llm.interface.js';
import type { HttpLlmOptions } from '../llm-options.js';
import { type LlmHttpSettings, postJson, readJson, withRetries } from './llm-http-client.js';
import { DEFAULT_RETRY_POLICY } from './retry-policy.js';

/** Default per-attempt timeout of the HTTP adapters. */
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * What the HTTP adapters share: one POST per attempt, with the timeouts, retries and error mapping
 * of `withRetries`; a subclass gives the wire format (request body, response, stream).
 */
export abstract class HttpLlmAdapter implements LlmAdapter {
  readonly info: LlmInfo;
  protected readonly settings: LlmHttpSettings;
  /** What every request body carries besides the conversation (the API key is not among them). */
  protected readonly sampling: Pick<HttpLlmOptions, 'model' | 'temperature' | 'maxTokens'>;
  /** Holds the API key: an ES private field, so `util.inspect` and JSON never show it. */
  readonly #headers: Record<string, string>;

  protected constructor(
    provider: string,
    options: HttpLlmOptions,
    private readonly url: string,
    headers: Record<string, string>,
  ) {
    this.#headers = headers;
    this.info = { provider, ...(options.model === undefined ? {} : { model: options.model }) };
    this.sampling = {
      model: options.model,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
    };
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.settings = {
      provider,
      timeoutMs,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? timeoutMs,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    };
  }

  /** The request body in the provider's format. */
  protected abstract body(request: LlmRequest, stream: boolean): Record<string, unknown>;
  /** A non-streamed response body as an `LlmResponse`. */
  protected abstract parse(body: unknown): LlmResponse;
  /** Reads a streamed response, calling `onToken` per text token and `markStarted` at the first. */
  protected abstract readStream(
    body: ReadableStream<Uint8Array>,
    onToken: TokenSink,
    markStarted: () => void,
  ): Promise<LlmResponse>;

  chat(request: LlmRequest): Promise<LlmResponse> {
    return withRetries(this.settings, request.signal, async (signal) => {
      const response = await postJson(
        this.settings,
        this.url,
        this.#headers,
        this.body(request, false),
        signal,
      );
      return this.parse(await readJson(this.settings, response));
    });
  }

  stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse> {
    return withRetries(this.settings, request.signal, async (signal, progress) => {
      const response = await postJson(
        this.settings,
        this.url,
        this.#headers,
        this.body(request, true),
        signal,
      );
      if (!response.body) return this.parse(await readJson(this.settings, response));
      // From here the deadline is a silence between chunks, not the whole answer: a long
      // generation that keeps streaming is not cut off.
      progress.heartbeat();
      const body = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform: (chunk, controller) => {
            progress.heartbeat();
            controller.enqueue(chunk);
          },
        }),
      );
      return this.readStream(body, onToken, progress.markStarted);
    });
  }
}
