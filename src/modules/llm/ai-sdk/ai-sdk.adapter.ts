import { DEFAULT_RETRY_POLICY } from '../retries/retry-policy.js';
import type { LlmCallSettings } from '../llm-options.js';
import {
  type AttemptProgress,
  type LlmHttpSettings,
  withRetries,
} from '../retries/with-retries.js';
import type {
  LlmAdapter,
  LlmInfo,
  LlmRequest,
  LlmResponse,
  TokenSink,
} from '../interfaces/llm.interface.js';
import type {
  AiSdkLanguageModel,
  CallableModel,
  ModelCallOptions,
  ModelOutputPart,
} from './ai-sdk-language-model.js';
import { toLlmError, unifiedReason } from './ai-sdk-errors.js';
import { LlmConnectionError } from '../llm-errors.js';
import { toModelPrompt, toModelToolChoice, toModelTools } from './ai-sdk-prompt.js';
import { AssistantMessageBuilder } from './ai-sdk-result.js';
import { checkedModel } from './checked-model.js';

/** Default per-attempt timeout. */
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * An `LlmAdapter` over any AI SDK language model (specification v2, v3 or v4): the kernel's
 * messages become the model's prompt (parts, reasoning and tool calls included), its answer an
 * assistant message. It adds what the kernel's adapter contract asks and a bare model call does not
 * do: a deadline per attempt and per streamed silence, retries with backoff that honour
 * `Retry-After` (never once text went out), and typed `LlmError`s.
 */
export class AiSdkLlmAdapter implements LlmAdapter {
  readonly info: LlmInfo;
  private readonly settings: LlmHttpSettings;
  private readonly model: Promise<CallableModel>;
  /** The model once loaded (saves a wait per call). */
  private loaded?: CallableModel;

  constructor(
    model: AiSdkLanguageModel | Promise<AiSdkLanguageModel>,
    private readonly options: LlmCallSettings = {},
    info?: LlmInfo,
  ) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const provider = info?.provider ?? (model instanceof Promise ? 'ai-sdk' : model.provider);
    this.info = info ?? {
      provider,
      ...(model instanceof Promise ? {} : { model: model.modelId }),
    };
    this.settings = {
      provider,
      timeoutMs,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? timeoutMs,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    };
    this.model = Promise.resolve(model).then((resolved) => (this.loaded = checkedModel(resolved)));
    // Seen by ready() or the first call; never an unhandled rejection in between.
    this.model.catch(() => undefined);
  }

  /** Resolves once the model is loaded and checked; rejects with why it cannot be used. */
  async ready(): Promise<void> {
    await this.model;
  }

  /**
   * Calls the model's `doGenerate` with a deadline per attempt, retrying transient failures with
   * backoff; failures are thrown as `LlmError`s.
   */
  async chat(request: LlmRequest): Promise<LlmResponse> {
    const model = this.loaded ?? (await this.model);
    return withRetries(this.settings, request.signal, async (signal) => {
      let result;
      try {
        result = await model.doGenerate(this.callOptions(model, request, signal));
      } catch (error) {
        throw toLlmError(error, this.settings.provider);
      }
      const builder = new AssistantMessageBuilder();
      for (const part of result.content ?? []) builder.addContent(part);
      return builder.build(result.usage, result.finishReason);
    });
  }

  /**
   * Calls the model's `doStream` and passes each text delta to `onToken`. Retries only before the
   * first token; a silence between parts longer than `streamIdleTimeoutMs`, or a stream that ends
   * before the answer finished, is an `LlmError`.
   */
  async stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse> {
    const model = this.loaded ?? (await this.model);
    return withRetries(this.settings, request.signal, async (signal, progress) => {
      let reader: ReadableStreamDefaultReader<ModelOutputPart>;
      try {
        // Raw chunks keep the silence deadline honest: a provider may hold parts back (usage, the
        // finish reason) while its server is still sending.
        const { stream } = await model.doStream({
          ...this.callOptions(model, request, signal),
          includeRawChunks: true,
        });
        reader = stream.getReader();
      } catch (error) {
        throw toLlmError(error, this.settings.provider);
      }
      // From here the deadline is a silence between parts, not the whole answer.
      progress.heartbeat();
      return this.readStream(reader, signal, progress, onToken);
    });
  }

  private async readStream(
    reader: ReadableStreamDefaultReader<ModelOutputPart>,
    signal: AbortSignal,
    progress: AttemptProgress,
    onToken: TokenSink,
  ): Promise<LlmResponse> {
    const builder = new AssistantMessageBuilder();
    let usage: unknown;
    let finishReason: unknown;
    try {
      for (;;) {
        const { done, value: part } = await readUnlessAborted(reader, signal);
        if (done) break;
        progress.heartbeat();
        switch (part.type) {
          case 'text-start':
          case 'text-end':
            if (part.providerMetadata) builder.addText('', part.providerMetadata);
            break;
          case 'text-delta': {
            const delta = part.delta ?? (part as { textDelta?: string }).textDelta ?? '';
            if (delta === '') break;
            progress.markStarted();
            builder.addText(delta);
            onToken(delta);
            break;
          }
          case 'reasoning-start':
          case 'reasoning-delta':
          case 'reasoning-end':
            builder.addReasoning(part);
            break;
          case 'tool-call':
            builder.addToolCall(part);
            break;
          case 'finish':
            usage = part.usage;
            finishReason = part.finishReason;
            break;
          case 'error':
            throw toLlmError(part.error, this.settings.provider, 'stream');
        }
      }
      if (finishReason === undefined || unifiedReason(finishReason) === 'interrupted')
        throw new LlmConnectionError(
          this.settings.provider,
          new Error('the stream ended before the answer finished'),
        );
    } catch (error) {
      void reader.cancel().catch(() => undefined);
      throw signal.aborted ? error : toLlmError(error, this.settings.provider);
    }
    return builder.build(usage, finishReason);
  }

  private callOptions(
    model: CallableModel,
    request: LlmRequest,
    signal: AbortSignal,
  ): ModelCallOptions {
    const { temperature, maxTokens, providerOptions } = this.options;
    const tools = toModelTools(request.tools);
    return {
      prompt: toModelPrompt(request.messages, model.specificationVersion, this.settings.provider),
      ...(tools ? { tools } : {}),
      ...(tools && request.toolChoice ? { toolChoice: toModelToolChoice(request.toolChoice) } : {}),
      ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
      ...(temperature === undefined ? {} : { temperature }),
      ...(providerOptions ? { providerOptions } : {}),
      abortSignal: signal,
    };
  }
}

/** The next part, or the signal's reason as soon as it fires (a stalled body may never settle). */
function readUnlessAborted<T>(
  reader: ReadableStreamDefaultReader<T>,
  signal: AbortSignal,
): ReturnType<ReadableStreamDefaultReader<T>['read']> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    reader.read().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
