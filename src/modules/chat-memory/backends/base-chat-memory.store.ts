import { ConversationVersionConflictError } from '../errors/conversation-version-conflict.error.js';
import type {
  AddMessagesOptions,
  AddMessagesResult,
  ChatMemoryStore,
  ChatPage,
  ChatPageOptions,
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

import { AppendCoalescer, type AppendOutcome, type AppendRequest } from './append-coalescer.js';
import { readPageInChunks, withinBudget, type StoredPage } from './page-reading.js';

export type { AppendOutcome, AppendRequest } from './append-coalescer.js';

/**
 * Shared front of every built-in backend: validates arguments before any I/O, assigns ids, turns a
 * conflicting append into `ConversationVersionConflictError` and decodes stored JSON. A backend
 * implements the raw operations on already-valid input.
 */
export abstract class BaseChatMemoryStore implements ChatMemoryStore {
  /** The backend's `db.system.name`, on the span of each operation. */
  protected abstract readonly system: StoreSystem;
  /** Made on the first `add` of a backend that has `appendGroup`. */
  private coalescing: AppendCoalescer | undefined;

  /**
   * Appends the messages whose ids are not stored yet, atomically, checking `expectedVersion` only
   * if at least one message is new.
   */
  protected abstract appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome>;
  /**
   * Optional: appends several callers' batches to one conversation in one atomic operation, in
   * order, each with the outcome it would have had alone at its turn. A backend that has it gets
   * concurrent `add`s to one conversation coalesced into groups (see `AppendCoalescer`).
   */
  protected appendGroup?(
    conversationId: string,
    requests: AppendRequest[],
  ): Promise<AppendOutcome[]>;
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

  /**
   * The version, and the newest messages' JSON up to position `end` (all when `undefined`), newest
   * first: at most `count`, and no more than needed to pass `maxBytes`. A backend overrides it to
   * read both in one round trip; this one reads the version, then `range` chunks.
   */
  protected readPage(
    conversationId: string,
    end: number | undefined,
    count: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    return readPageInChunks(
      {
        readVersion: () => this.readVersion(conversationId),
        readRange: (from, limit) => this.readRange(conversationId, from, limit),
      },
      end,
      count,
      maxBytes,
    );
  }

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
      const request = { messages: prepared, expectedVersion: options?.expectedVersion };
      const outcome = await this.coalescer(conversationId, request);
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

  async page(conversationId: string, options: ChatPageOptions): Promise<ChatPage> {
    assertConversationId(conversationId);
    const { before, count, maxBytes } = options;
    if (before !== undefined) assertInteger(before, 'before', 1);
    assertInteger(count, 'count', 1);
    assertInteger(maxBytes, 'maxBytes', 1);
    const end = before === undefined ? undefined : before - 1;
    return this.traced('page', conversationId, async () => {
      const { version, newestFirst } = await this.readPage(conversationId, end, count, maxBytes);
      const bodies = withinBudget(newestFirst.slice(0, count), maxBytes);
      const last = end === undefined ? version : Math.min(end, version);
      return { version, messages: decodeAll(bodies), from: last - bodies.length };
    });
  }

  async version(conversationId: string): Promise<number> {
    assertConversationId(conversationId);
    return this.traced('version', conversationId, () => this.readVersion(conversationId));
  }

  /** `add`'s append: through the coalescer if the backend appends groups, else alone. */
  private coalescer(conversationId: string, request: AppendRequest): Promise<AppendOutcome> {
    if (this.appendGroup === undefined)
      return this.appendBatch(conversationId, request.messages, request.expectedVersion);
    this.coalescing ??= new AppendCoalescer(
      (c, r) => this.appendBatch(c, r.messages, r.expectedVersion),
      (c, requests) => this.appendGroup!(c, requests),
    );
    return this.coalescing.append(conversationId, request);
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
