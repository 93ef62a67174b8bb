import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { loadOptionalDependency } from '../../../common/load-optional-dependency.js';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import type { PrepareOptions } from '../interfaces/memory-provider.interface.js';
import { safeWindow } from '../window/safe-window.js';
import { StoreBackedMemoryProvider } from './store-backed.memory-provider.js';
import { slicedTokenCount } from './sliced-token-count.js';
import { TokenCountCache } from './token-count-cache.js';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** Options of {@link TokenBudgetMemoryProvider}. */
export interface TokenBudgetOptions {
  /** The budget for everything sent: messages, system prompts and tool schemas. */
  maxTokens: number;
  /**
   * The tokenizer (default: `gpt-tokenizer`'s `countTokens`, the o200k encoding, given at most
   * 1,000 characters at a time so pasted blobs stay cheap; install it). It must answer the same
   * for the same text: counts are kept per conversation across turns (texts up to 32,000
   * characters, about 4 million characters in all, least recently used conversations dropped
   * first), so a history is not counted again on every turn.
   */
  counter?: TokenCounter;
  /**
   * What an image or a file part costs, in tokens, since its pixels and pages are not counted
   * here (defaults: 1,500 for an image, ≈ 1 megapixel under OpenAI's high detail (765) and
   * Anthropic's width×height/750 (≈1,400), rounded up; 3,000 for a file, ≈ three PDF pages).
   */
  partTokens?: { image?: number; file?: number };
}

/** The default cost of an image and of a file part. */
export const DEFAULT_PART_TOKENS = { image: 1_500, file: 3_000 } as const;

/** Tokens a chat format spends per message besides its text (role markers, separators). */
const PER_MESSAGE_OVERHEAD = 4;

/** The smallest part of a history read from its end; each larger one holds 4× as many messages. */
const FIRST_TAIL = 16;
/** The largest part (16 · 4⁸ messages): past it, the rest of a history is not read. */
const MAX_PART = FIRST_TAIL * 4 ** 8;
/** Conversations whose part size is remembered (the least recently read are forgotten first). */
const REMEMBERED_CONVERSATIONS = 10_000;

/** The part size (16, 64, 256…) that holds `messages` newest messages, at most the largest. */
function partSizeFor(messages: number): number {
  let size = FIRST_TAIL;
  while (size < messages && size < MAX_PART) size *= 4;
  return size;
}

/**
 * Trims to a token budget with the rules of the safe window: the largest window whose output, plus
 * the system prompts and tool schemas that go with it, fits in `maxTokens`, counted by a real
 * tokenizer. When even the smallest window does not fit (the rules keep the current user message
 * and the newest tool round), that smallest window is sent: the rules win over the budget.
 */
export class TokenBudgetMemoryProvider extends StoreBackedMemoryProvider {
  private counter?: TokenCounter;
  /** Each message's tokens, while the message lives (the turn's rounds send the same history). */
  private readonly tokensOf = new WeakMap<ChatMessage, number>();
  /** Texts' tokens across turns, per conversation (each turn reads its history anew). */
  private readonly counted = new TokenCountCache();
  /** The part size that was enough for each conversation last time, to read it first next time. */
  private readonly partSizes = new Map<string, number>();

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
    for (const type of ['image', 'file'] as const) {
      const cost = options.partTokens?.[type];
      if (cost !== undefined && !(Number.isInteger(cost) && cost >= 0))
        throw new InvalidArgumentError(
          `partTokens.${type}`,
          `must be an integer ≥ 0, got ${String(cost)}`,
        );
    }
    this.counter = options.counter;
  }

  /**
   * Loads the tokenizer now (the agent calls it at bootstrap), so a missing `gpt-tokenizer` stops the
   * app at startup naming the package, not its first turn.
   */
  async ready(): Promise<void> {
    await this.tokenCounter();
  }

  /**
   * Only the newest messages: the smallest part of 16, 64, 256… (4× each) newest messages whose
   * tokens alone reach the budget (so the budget's window lies inside it), or the whole history if
   * none does. The window is the same as over the whole history, but for system messages stored
   * before the part. Read from the size that was enough for the conversation last time, each
   * further read taking only the older messages; the part is the same whatever was read first.
   */
  async recentHistory(
    conversationId: string,
    end?: number,
  ): Promise<{ messages: StoredChatMessage[]; version: number; from: number }> {
    const count = this.counted.counterFor(conversationId, await this.tokenCounter());
    let size = this.partSizes.get(conversationId) ?? FIRST_TAIL;
    let part = await this.tailBefore(conversationId, size, end);
    for (;;) {
      const needed = this.newestReachingBudget(part.messages, count);
      if (needed !== undefined || part.from === 0 || size >= MAX_PART) {
        const step = partSizeFor(needed ?? part.messages.length);
        this.rememberPartSize(conversationId, step);
        const cut = Math.max(0, part.messages.length - step);
        return cut === 0
          ? part
          : { messages: part.messages.slice(cut), version: part.version, from: part.from + cut };
      }
      size = Math.min(size * 4, MAX_PART);
      const older = await this.olderThan(conversationId, part.from, size - part.messages.length);
      part = {
        messages: [...older, ...part.messages],
        version: part.version,
        from: part.from - older.length,
      };
    }
  }

  /** Clears the conversation, and forgets its texts' counts and part size here. */
  override async clear(conversationId: string): Promise<void> {
    this.counted.forget(conversationId);
    this.partSizes.delete(conversationId);
    await super.clear(conversationId);
  }

  /** How many of the newest messages it takes for their tokens to reach the budget, if they do. */
  private newestReachingBudget(
    messages: StoredChatMessage[],
    count: TokenCounter,
  ): number | undefined {
    let tokens = 0;
    for (let i = messages.length - 1; i >= 0; i -= 1) {
      tokens += this.messageTokens(messages[i]!, count);
      if (tokens >= this.options.maxTokens) return messages.length - i;
    }
    return undefined;
  }

  private rememberPartSize(conversationId: string, size: number): void {
    this.partSizes.delete(conversationId);
    this.partSizes.set(conversationId, size);
    if (this.partSizes.size > REMEMBERED_CONVERSATIONS)
      this.partSizes.delete(this.partSizes.keys().next().value!);
  }

  async prepare(
    conversationId: string,
    messages: ChatMessage[],
    options: PrepareOptions = {},
  ): Promise<ChatMessage[]> {
    const count = this.counted.counterFor(conversationId, await this.tokenCounter());
    const fixed =
      (options.systemPrompts ?? []).reduce(
        (sum, prompt) => sum + count(prompt) + PER_MESSAGE_OVERHEAD,
        0,
      ) + (options.tools?.length ? count(JSON.stringify(options.tools)) : 0);
    const cost = (output: ChatMessage[]) =>
      output.reduce((sum, message) => sum + this.messageTokens(message, count), fixed);
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

  /** Text and reasoning by the tokenizer; images and files at their configured cost. */
  private contentTokens(content: ChatMessage['content'], count: TokenCounter): number {
    if (typeof content === 'string') return count(content);
    let tokens = 0;
    for (const part of content ?? []) {
      if (part.type === 'text' || part.type === 'reasoning') tokens += count(part.text);
      else tokens += this.options.partTokens?.[part.type] ?? DEFAULT_PART_TOKENS[part.type];
    }
    return tokens;
  }

  /** The tokens one message costs: its text, its tool calls, its name, and the per-message overhead. */
  private messageTokens(message: ChatMessage, count: TokenCounter): number {
    let tokens = this.tokensOf.get(message);
    if (tokens === undefined) {
      tokens =
        PER_MESSAGE_OVERHEAD +
        this.contentTokens(message.content, count) +
        (message.name ? count(message.name) : 0);
      for (const call of message.toolCalls ?? [])
        tokens += count(call.name) + count(call.arguments);
      this.tokensOf.set(message, tokens);
    }
    return tokens;
  }

  private async tokenCounter(): Promise<TokenCounter> {
    if (!this.counter) {
      const tokenizer = await loadOptionalDependency<{ countTokens: TokenCounter }>(
        'gpt-tokenizer',
        'TokenBudgetMemoryProvider without a counter',
      );
      // Past the budget, a text's exact count does not matter: it can never be sent whole.
      const enough = this.options.maxTokens;
      this.counter = (text) => slicedTokenCount(text, tokenizer.countTokens, enough);
    }
    return this.counter;
  }
}
