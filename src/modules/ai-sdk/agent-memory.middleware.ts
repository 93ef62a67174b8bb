import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type {
  AddMessagesResult,
  ChatMemoryStore,
} from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { safeWindow } from '../memory-provider/window/safe-window.js';
import type { ModelOutputPart, SpecificationVersion } from '../llm/ai-sdk/ai-sdk-language-model.js';
import { toModelPrompt } from '../llm/ai-sdk/ai-sdk-prompt.js';
import { AssistantMessageBuilder } from '../llm/ai-sdk/ai-sdk-result.js';
import { unifiedReason } from '../llm/ai-sdk/ai-sdk-errors.js';
import {
  assertConversationId,
  validateMessages,
} from '../../common/messages/message-validation.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { type PromptMessage, promptToMessages } from './prompt-to-messages.js';

/** Options of {@link agentMemoryMiddleware}. */
export interface AgentMemoryMiddlewareOptions {
  /** Where the conversation lives (any backend of `ChatMemoryModule`). */
  store: ChatMemoryStore;
  conversationId: string;
  /**
   * How many stored messages go before the new ones (default 40), under the safe-window rules: a
   * tool result is never sent without its call, nor a call without its results.
   */
  window?: number;
  /**
   * Makes the turn exactly-once: its messages are stored as `<turnId>:0`, `<turnId>:1`, …, so a
   * retried request with the same id (e.g. an `Idempotency-Key`) is not stored twice.
   */
  turnId?: string;
  /** Called once the turn is stored. */
  onCommit?: (result: AddMessagesResult) => void;
}

/**
 * The middleware object `wrapLanguageModel` takes, typed loosely (methods, so their parameters
 * compare both ways) so that AI SDK 6's and 7's middleware types both accept it.
 */
export interface AgentMemoryMiddleware {
  readonly specificationVersion: 'v3';
  /**
   * Puts the conversation's stored window (read once per turn) between the system messages and the
   * new ones; new messages that are not valid are refused here, before the model is called.
   */
  transformParams(options: { params: unknown; type: string; model: unknown }): PromiseLike<never>;
  /** Calls the model; when its answer is the turn's final one, stores the turn before resolving. */
  wrapGenerate(options: {
    doGenerate: () => PromiseLike<unknown>;
    params: unknown;
  }): PromiseLike<never>;
  /**
   * Calls the model and passes its stream through; when a final answer's stream finishes without
   * an error part, stores the turn before the stream ends.
   */
  wrapStream(options: {
    doStream: () => PromiseLike<unknown>;
    params: unknown;
  }): PromiseLike<never>;
}

type CallParams = { prompt: PromptMessage[] } & Record<string, unknown>;
type Model = { specificationVersion: SpecificationVersion; provider: string };

/**
 * Memory for apps that call the AI SDK themselves: `wrapLanguageModel({ model, middleware:
 * agentMemoryMiddleware({ store, conversationId }) })`, then `generateText` / `streamText` with
 * only the new user message. Before each model call it puts the conversation's stored window
 * between the system prompt and the new messages; when the model gives its final answer (a step
 * that does not end in tool calls) it stores the turn — the new messages, every tool round of it,
 * and the answer — in one atomic append. A streamed answer is stored when its stream finishes;
 * nothing is stored when the call fails, is aborted, or stops in the middle of tool calls.
 * Create one per request.
 */
export function agentMemoryMiddleware(
  options: AgentMemoryMiddlewareOptions,
): AgentMemoryMiddleware {
  checkOptions(options);
  const { store, conversationId, window = 40, turnId, onCommit } = options;
  /** The turn's new messages, by the params that carried them to the model. */
  const newMessagesOf = new WeakMap<object, ChatMessage[]>();
  /** The stored window, read once per turn; and whether the turn (`turnId`) is already in it. */
  let turn: Promise<{ window: ChatMessage[]; stored: boolean }> | undefined;

  const loadTurn = async () => {
    const tail = await store.tail(conversationId, window);
    const own = (message: ChatMessage) =>
      turnId !== undefined && message.id?.startsWith(`${turnId}:`);
    return { window: tail.filter((message) => !own(message)), stored: tail.some(own) };
  };

  const commit = async (params: object, reply: ChatMessage): Promise<void> => {
    const { stored } = await turn!;
    turn = undefined;
    // A retried request of a turn already stored: stored once, as the first attempt left it.
    if (stored) return;
    const messages = [...(newMessagesOf.get(params) ?? []), reply].map((message, index) =>
      turnId === undefined ? message : { ...message, id: `${turnId}:${index}` },
    );
    const result = await store.add(conversationId, messages);
    onCommit?.(result);
  };

  const middleware = {
    specificationVersion: 'v3' as const,
    async transformParams({ params, model }: { params: CallParams; model: Model }) {
      const system = params.prompt.filter((message) => message.role === 'system');
      const fresh = params.prompt.filter((message) => message.role !== 'system');
      const freshMessages = promptToMessages(fresh);
      // Refused before the model is called (and paid), not when the answer is stored.
      validateMessages(freshMessages);
      // Read once per turn: every step of a tool loop sends the same stored window.
      turn ??= loadTurn();
      const { window: stored } = await turn.catch((error: unknown) => {
        turn = undefined;
        throw error;
      });
      const { output } = safeWindow([...stored, ...freshMessages], window + freshMessages.length);
      const firstFresh = output.findIndex((message) => freshMessages.includes(message));
      const kept = firstFresh < 0 ? output : output.slice(0, firstFresh);
      const transformed: CallParams = {
        ...params,
        prompt: [
          ...system,
          ...(toModelPrompt(kept, model.specificationVersion, model.provider) as PromptMessage[]),
          ...fresh,
        ],
      };
      newMessagesOf.set(transformed, freshMessages);
      return transformed;
    },
    async wrapGenerate({
      doGenerate,
      params,
    }: {
      doGenerate: () => PromiseLike<{ content?: ModelOutputPart[]; finishReason?: unknown }>;
      params: CallParams;
    }) {
      const result = await doGenerate();
      const builder = new AssistantMessageBuilder();
      for (const part of result.content ?? []) builder.addContent(part);
      if (isFinalAnswer(builder, result.finishReason))
        await commit(params, builder.build(undefined, undefined).message);
      return result;
    },
    async wrapStream({
      doStream,
      params,
    }: {
      doStream: () => PromiseLike<{ stream: ReadableStream<ModelOutputPart> }>;
      params: CallParams;
    }) {
      const result = await doStream();
      const builder = new AssistantMessageBuilder();
      let finishReason: unknown;
      let failed = false;
      const stream = result.stream.pipeThrough(
        new TransformStream<ModelOutputPart, ModelOutputPart>({
          transform(part, controller) {
            controller.enqueue(part);
            if (part.type === 'text-delta') builder.addText(part.delta ?? '');
            else if (part.type === 'text-start' || part.type === 'text-end')
              builder.addText('', part.providerMetadata);
            else if (part.type.startsWith('reasoning-')) builder.addReasoning(part);
            else if (part.type === 'tool-call') builder.addToolCall(part);
            else if (part.type === 'finish') finishReason = part.finishReason;
            else if (part.type === 'error') failed = true;
          },
          async flush() {
            if (failed || !isFinalAnswer(builder, finishReason)) return;
            await commit(params, builder.build(undefined, undefined).message);
          },
        }),
      );
      return { ...result, stream };
    },
  };
  return middleware as unknown as AgentMemoryMiddleware;
}

/**
 * The step is the turn's last: the model calls none of the app's tools (the AI SDK goes on when it
 * does, whatever the finish reason says) and it finished, neither cut off nor failed.
 */
function isFinalAnswer(builder: AssistantMessageBuilder, finishReason: unknown): boolean {
  const reason = unifiedReason(finishReason);
  return (
    !builder.callsTools && reason !== undefined && reason !== 'error' && reason !== 'interrupted'
  );
}

const OPTION_KEYS = new Set(['store', 'conversationId', 'window', 'turnId', 'onCommit']);

/** Refuses options a typo would otherwise leave unread, and values the first call would trip on. */
function checkOptions(options: AgentMemoryMiddlewareOptions): void {
  for (const key of Object.keys(options ?? {}))
    if (!OPTION_KEYS.has(key))
      throw new InvalidArgumentError(
        `agentMemoryMiddleware options.${key}`,
        `is not an option (they are ${[...OPTION_KEYS].join(', ')})`,
      );
  if (typeof options?.store?.tail !== 'function' || typeof options.store.add !== 'function')
    throw new InvalidArgumentError(
      'agentMemoryMiddleware options.store',
      'must be a ChatMemoryStore',
    );
  assertConversationId(options.conversationId);
  const window = options.window ?? 40;
  if (!(Number.isInteger(window) && window >= 0))
    throw new InvalidArgumentError(
      'agentMemoryMiddleware options.window',
      `must be an integer ≥ 0, got ${String(window)}`,
    );
  if (options.turnId !== undefined && (typeof options.turnId !== 'string' || !options.turnId))
    throw new InvalidArgumentError(
      'agentMemoryMiddleware options.turnId',
      'must be a non-empty string',
    );
}
