import type {
  AddMessagesOptions,
  AddMessagesResult,
  ChatMemoryStore,
} from '../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../common/messages/chat-message.interface.js';

/**
 * A chat store resolved on first use. `ChatMemoryModule` builds its store asynchronously, and a
 * provider built from async options cannot declare which store token it depends on, so it takes
 * the store once the application has been built (`resolveNow()` at module init).
 */
export class DeferredChatMemoryStore implements ChatMemoryStore {
  private resolved?: ChatMemoryStore;

  constructor(private readonly resolve: () => ChatMemoryStore) {}

  /** Resolves the store (throwing if it does not exist). */
  resolveNow(): ChatMemoryStore {
    this.resolved ??= this.resolve();
    return this.resolved;
  }

  get(conversationId: string): Promise<StoredChatMessage[]> {
    return this.resolveNow().get(conversationId);
  }

  add(
    conversationId: string,
    messages: ChatMessage[],
    options?: AddMessagesOptions,
  ): Promise<AddMessagesResult> {
    return this.resolveNow().add(conversationId, messages, options);
  }

  clear(conversationId: string): Promise<void> {
    return this.resolveNow().clear(conversationId);
  }

  tail(conversationId: string, n: number): Promise<StoredChatMessage[]> {
    return this.resolveNow().tail(conversationId, n);
  }

  range(conversationId: string, fromVersion: number, limit: number): Promise<StoredChatMessage[]> {
    return this.resolveNow().range(conversationId, fromVersion, limit);
  }

  version(conversationId: string): Promise<number> {
    return this.resolveNow().version(conversationId);
  }
}
