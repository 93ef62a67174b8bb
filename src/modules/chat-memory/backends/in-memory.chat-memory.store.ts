import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

interface Conversation {
  readonly messages: string[];
  readonly ids: Set<string>;
}

/**
 * Process-local backend (`backend: 'memory'`): for tests, demos and single-process apps. It stores
 * each message's JSON text, so callers always get deep copies and see exactly what a database
 * backend would return. Not durable, not shared across instances.
 */
export class InMemoryChatMemoryStore extends BaseChatMemoryStore implements BackedChatMemoryStore {
  protected readonly system = 'memory' as const;
  readonly backing: ChatStoreBacking = { kind: 'memory' };
  private readonly conversations = new Map<string, Conversation>();

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    const conversation = this.conversations.get(conversationId) ?? {
      messages: [],
      ids: new Set<string>(),
    };
    const fresh = messages.filter((message) => !conversation.ids.has(message.id));
    const version = conversation.messages.length;
    if (fresh.length === 0) return { conflict: false, version };
    if (expectedVersion !== undefined && expectedVersion !== version)
      return { conflict: true, version };
    for (const message of fresh) {
      conversation.messages.push(message.json);
      conversation.ids.add(message.id);
    }
    this.conversations.set(conversationId, conversation);
    return { conflict: false, version: conversation.messages.length };
  }

  protected async readAll(conversationId: string): Promise<string[]> {
    return [...(this.conversations.get(conversationId)?.messages ?? [])];
  }

  protected async readTail(conversationId: string, n: number): Promise<string[]> {
    return this.conversations.get(conversationId)?.messages.slice(-n) ?? [];
  }

  protected async readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return (
      this.conversations.get(conversationId)?.messages.slice(fromVersion, fromVersion + limit) ?? []
    );
  }

  protected async readVersion(conversationId: string): Promise<number> {
    return this.conversations.get(conversationId)?.messages.length ?? 0;
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    this.conversations.delete(conversationId);
  }
}
