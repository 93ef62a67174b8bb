import type {
  AddMessagesOptions,
  ChatMemoryStore,
} from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import type { OnModuleInit } from '@nestjs/common';
import { DeferredChatMemoryStore } from '../deferred-chat-memory.store.js';
import type { MemoryProvider, PrepareOptions } from '../interfaces/memory-provider.interface.js';

/** Loads and persists through a `ChatMemoryStore`; subclasses decide what `prepare` sends. */
export abstract class StoreBackedMemoryProvider implements MemoryProvider, OnModuleInit {
  protected constructor(readonly store: ChatMemoryStore) {}

  /**
   * A store named in `MemoryProviderModule` options is taken once the app is built (the chat
   * module builds its store asynchronously): resolve it now, so a missing one fails bootstrap.
   */
  onModuleInit(): void {
    if (this.store instanceof DeferredChatMemoryStore) this.store.resolveNow();
  }

  abstract prepare(
    conversationId: string,
    messages: ChatMessage[],
    options?: PrepareOptions,
  ): Promise<ChatMessage[]>;

  async history(
    conversationId: string,
  ): Promise<{ messages: StoredChatMessage[]; version: number }> {
    const messages = await this.store.get(conversationId);
    return { messages, version: messages.length };
  }

  /**
   * The messages at versions `from + 1 … end` for the newest `count` before `end` (default: the
   * current version), and the current version: read by position, so the part and its bounds agree
   * while turns arrive. A subclass that overrides `history` is read through it (whole).
   */
  protected async tailBefore(
    conversationId: string,
    count: number,
    end?: number,
  ): Promise<{ messages: StoredChatMessage[]; version: number; from: number }> {
    if (this.history !== StoreBackedMemoryProvider.prototype.history) {
      // A subclass that reads history its own way (redacting, filtering) is read its way.
      const whole = await this.history(conversationId);
      const last = Math.min(end ?? whole.version, whole.messages.length);
      const from = Math.max(0, last - count);
      return { messages: whole.messages.slice(from, last), version: whole.version, from };
    }
    const version = await this.store.version(conversationId);
    const last = Math.min(end ?? version, version);
    const from = Math.max(0, last - count);
    const messages = last > from ? await this.store.range(conversationId, from, last - from) : [];
    return { messages, version, from };
  }

  /**
   * The up to `count` messages just before version `from` (at versions `from - count + 1 … from`),
   * to extend a part `tailBefore` read: positions do not move as turns arrive.
   */
  protected async olderThan(
    conversationId: string,
    from: number,
    count: number,
  ): Promise<StoredChatMessage[]> {
    const start = Math.max(0, from - count);
    if (start >= from) return [];
    if (this.history !== StoreBackedMemoryProvider.prototype.history)
      return (await this.history(conversationId)).messages.slice(start, from);
    return this.store.range(conversationId, start, from - start);
  }

  async append(
    conversationId: string,
    messages: ChatMessage[],
    options?: AddMessagesOptions,
  ): Promise<{ version: number }> {
    const { version } = await this.store.add(conversationId, messages, options);
    return { version };
  }

  /** Clears the conversation in the store (its message ids may then be used again). */
  clear(conversationId: string): Promise<void> {
    return this.store.clear(conversationId);
  }
}
