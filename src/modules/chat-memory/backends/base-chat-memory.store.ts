import { ConversationVersionConflictError } from '../errors/conversation-version-conflict.error.js';
import type {
  AddMessagesOptions,
  AddMessagesResult,
  ChatMemoryStore,
} from '../interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import {
  assertConversationId,
  assertInteger,
  prepareBatch,
} from '../../../common/messages/message-validation.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import { ATTR, type StoreSystem } from '../../../common/telemetry/attributes.js';
import { inStoreSpan } from '../../../common/telemetry/spans.js';

/** What a backend's atomic append reports. */
export interface AppendOutcome {
  /** True if new messages would have been written but `expectedVersion` did not match. */
  conflict: boolean;
  /** The stored version after the append (before it, on a conflict). */
  version: number;
}

/**
 * Shared front of every built-in backend: validates arguments before any I/O, assigns ids, turns a
 * conflicting append into `ConversationVersionConflictError` and decodes stored JSON. A backend
 * implements the raw operations on already-valid input.
 */
export abstract class BaseChatMemoryStore implements ChatMemoryStore {
  /** The backend's `db.system.name`, on the span of each operation. */
  protected abstract readonly system: StoreSystem;

  /**
   * Appends the messages whose ids are not stored yet, atomically, checking `expectedVersion` only
   * if at least one message is new.
   */
  protected abstract appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome>;
  /** Every stored message's JSON, oldest first. */
  protected abstract readAll(conversationId: string): Promise<string[]>;
  /** The newest `n` (≥ 1) messages' JSON, oldest first. */
  protected abstract readTail(conversationId: string, n: number): Promise<string[]>;
  /** Up to `limit` (≥ 1) messages' JSON at positions after `fromVersion`, oldest first. */
  protected abstract readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]>;
  /** The count of stored messages; 0 for an unknown conversation. */
  protected abstract readVersion(conversationId: string): Promise<number>;
  /** Deletes every message of the conversation, and with them its ids. */
  protected abstract removeConversation(conversationId: string): Promise<void>;

  async get(conversationId: string): Promise<StoredChatMessage[]> {
    assertConversationId(conversationId);
    return this.traced('get', conversationId, async () =>
      decodeAll(await this.readAll(conversationId)),
    );
  }

  async add(
    conversationId: string,
    messages: ChatMessage[],
    options: AddMessagesOptions = {},
  ): Promise<AddMessagesResult> {
    assertConversationId(conversationId);
    const prepared = prepareBatch(messages, options?.expectedVersion);
    return this.traced('add', conversationId, async () => {
      if (prepared.length === 0)
        return { version: await this.readVersion(conversationId), ids: [] };
      const outcome = await this.appendBatch(conversationId, prepared, options?.expectedVersion);
      if (outcome.conflict) {
        throw new ConversationVersionConflictError(
          conversationId,
          options.expectedVersion ?? -1,
          outcome.version,
        );
      }
      return { version: outcome.version, ids: prepared.map((message) => message.id) };
    });
  }

  async clear(conversationId: string): Promise<void> {
    assertConversationId(conversationId);
    await this.traced('clear', conversationId, () => this.removeConversation(conversationId));
  }

  async tail(conversationId: string, n: number): Promise<StoredChatMessage[]> {
    assertConversationId(conversationId);
    assertInteger(n, 'n', 0);
    if (n === 0) return [];
    return this.traced('tail', conversationId, async () =>
      decodeAll(await this.readTail(conversationId, n)),
    );
  }

  async range(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<StoredChatMessage[]> {
    assertConversationId(conversationId);
    assertInteger(fromVersion, 'fromVersion', 0);
    assertInteger(limit, 'limit', 0);
    if (limit === 0) return [];
    return this.traced('range', conversationId, async () =>
      decodeAll(await this.readRange(conversationId, fromVersion, limit)),
    );
  }

  async version(conversationId: string): Promise<number> {
    assertConversationId(conversationId);
    return this.traced('version', conversationId, () => this.readVersion(conversationId));
  }

  /** One operation in its span (`chat_memory.<operation>`), once its arguments are valid. */
  private traced<T>(operation: string, conversationId: string, work: () => Promise<T>): Promise<T> {
    return inStoreSpan(
      'chat_memory',
      this.system,
      operation,
      { [ATTR.conversationId]: conversationId },
      work,
    );
  }
}

function decodeAll(rows: string[]): StoredChatMessage[] {
  return rows.map((json) => JSON.parse(json) as StoredChatMessage);
}
