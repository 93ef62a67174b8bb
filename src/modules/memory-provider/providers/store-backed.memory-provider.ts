import type {
  AddMessagesOptions,
  ChatMemoryStore,
} from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import type { MemoryProvider, PrepareOptions } from '../interfaces/memory-provider.interface.js';

/** Loads and persists through a `ChatMemoryStore`; subclasses decide what `prepare` sends. */
export abstract class StoreBackedMemoryProvider implements MemoryProvider {
  protected constructor(readonly store: ChatMemoryStore) {}

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

  async append(
    conversationId: string,
    messages: ChatMessage[],
    options?: AddMessagesOptions,
  ): Promise<{ version: number }> {
    const { version } = await this.store.add(conversationId, messages, options);
    return { version };
  }

  clear(conversationId: string): Promise<void> {
    return this.store.clear(conversationId);
  }
}
