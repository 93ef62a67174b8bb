import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import { safeWindow } from '../window/safe-window.js';
import { StoreBackedMemoryProvider } from './store-backed.memory-provider.js';

/** Checks a window size: a positive integer or `Infinity`. */
export function assertWindow(window: unknown, argument = 'window'): asserts window is number {
  if (
    window !== Infinity &&
    !(typeof window === 'number' && Number.isInteger(window) && window > 0)
  ) {
    throw new InvalidArgumentError(
      argument,
      `must be a positive integer or Infinity, got ${String(window)}`,
    );
  }
}

/**
 * The default policy: the safe sliding window over the newest `window` messages
 * (system messages always kept and not counted). `Infinity` (the default) trims nothing but still
 * pairs every tool call with its results.
 */
export class DefaultMemoryProvider extends StoreBackedMemoryProvider {
  constructor(
    store: ChatMemoryStore,
    readonly window: number = Infinity,
  ) {
    super(store);
    assertWindow(window);
  }

  /**
   * With a finite window, only the newest `window` messages: the window's output is the same as
   * over the whole history, but for system messages stored before them (turns store none; add
   * standing instructions as the agent's `systemPrompt`).
   */
  get recentHistory():
    | ((
        conversationId: string,
        end?: number,
      ) => Promise<{ messages: StoredChatMessage[]; version: number; from: number }>)
    | undefined {
    if (!Number.isFinite(this.window)) return undefined;
    return (conversationId, end) => this.tailBefore(conversationId, this.window, end);
  }

  async prepare(_conversationId: string, messages: ChatMessage[]): Promise<ChatMessage[]> {
    return safeWindow(messages, this.window).output;
  }
}
