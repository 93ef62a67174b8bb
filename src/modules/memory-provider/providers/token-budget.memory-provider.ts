import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { loadOptionalDependency } from '../../../common/load-optional-dependency.js';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { PrepareOptions } from '../interfaces/memory-provider.interface.js';
import { safeWindow } from '../window/safe-window.js';
import { StoreBackedMemoryProvider } from './store-backed.memory-provider.js';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Options of {@link TokenBudgetMemoryProvider}. */
export interface TokenBudgetOptions {
  /** The budget for everything sent: messages, system prompts and tool schemas. */
  maxTokens: number;
  /** The tokenizer (default: `gpt-tokenizer`'s `countTokens`, the o200k encoding; install it). */
  counter?: TokenCounter;
}

/** Tokens a chat format spends per message besides its text (role markers, separators). */
const PER_MESSAGE_OVERHEAD = 4;

/**
 * Trims to a token budget with the rules of the safe window: the largest window whose output, plus
 * the system prompts and tool schemas that go with it, fits in `maxTokens`, counted by a real
 * tokenizer. When even the smallest window does not fit (the rules keep the current user message
 * and the newest tool round), that smallest window is sent: the rules win over the budget.
 */
export class TokenBudgetMemoryProvider extends StoreBackedMemoryProvider {
  private counter?: TokenCounter;

  constructor(
    store: ChatMemoryStore,
    private readonly options: TokenBudgetOptions,
  ) {
    super(store);
    if (!(Number.isInteger(options?.maxTokens) && options.maxTokens > 0)) {
      throw new InvalidArgumentError(
        'maxTokens',
        `must be a positive integer, got ${String(options?.maxTokens)}`,
      );
    }
    this.counter = options.counter;
  }

  async prepare(
    _conversationId: string,
    messages: ChatMessage[],
    options: PrepareOptions = {},
  ): Promise<ChatMessage[]> {
    const count = await this.tokenCounter();
    const fixed =
      (options.systemPrompts ?? []).reduce(
        (sum, prompt) => sum + count(prompt) + PER_MESSAGE_OVERHEAD,
        0,
      ) + (options.tools?.length ? count(JSON.stringify(options.tools)) : 0);
    const cache = new Map<ChatMessage, number>();
    const cost = (output: ChatMessage[]) =>
      output.reduce((sum, message) => sum + this.messageTokens(message, count, cache), fixed);
    const bodyLength = messages.filter((message) => message.role !== 'system').length;
    // The largest window that fits; output size grows with the window, so a binary search finds it.
    let low = 1;
    let high = Math.max(1, bodyLength);
    let best = safeWindow(messages, 1).output;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const output = safeWindow(messages, middle).output;
      if (cost(output) <= this.options.maxTokens) {
        best = output;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return best;
  }

  /** The tokens one message costs: its text, its tool calls, its name, and the per-message overhead. */
  private messageTokens(
    message: ChatMessage,
    count: TokenCounter,
    cache: Map<ChatMessage, number>,
  ): number {
    let tokens = cache.get(message);
    if (tokens === undefined) {
      tokens =
        PER_MESSAGE_OVERHEAD +
        count(message.content ?? '') +
        (message.name ? count(message.name) : 0);
      for (const call of message.toolCalls ?? [])
        tokens += count(call.name) + count(call.arguments);
      cache.set(message, tokens);
    }
    return tokens;
  }

  private async tokenCounter(): Promise<TokenCounter> {
    if (!this.counter) {
      const tokenizer = await loadOptionalDependency<{ countTokens: TokenCounter }>(
        'gpt-tokenizer',
        'TokenBudgetMemoryProvider without a counter',
      );
      this.counter = (text) => (text ? tokenizer.countTokens(text) : 0);
    }
    return this.counter;
  }
}
