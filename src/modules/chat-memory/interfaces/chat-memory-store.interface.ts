import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';

/** Options of {@link ChatMemoryStore.add}. */
export interface AddMessagesOptions {
  /**
   * Optimistic concurrency: the number of messages the caller believes are stored. If new messages
   * would be written and the stored count differs, the add throws
   * `ConversationVersionConflictError` and writes nothing.
   */
  expectedVersion?: number;
}

/** What {@link ChatMemoryStore.add} resolves to. */
export interface AddMessagesResult {
  /** The conversation's version (count of stored messages) after the add. */
  version: number;
  /** The id of every message of the batch, in input order (assigned ids included). */
  ids: string[];
}

/** What {@link ChatMemoryStore.page} reads: a page ending at a position, within a byte budget. */
export interface ChatPageOptions {
  /** The page ends just before this 1-based position (default: after the newest message). */
  before?: number;
  /** Most messages on the page (≥ 1). */
  count: number;
  /**
   * Most bytes of stored JSON on the page: older messages stop being taken once the next would pass
   * it; the newest is always taken, so a page is never empty while messages remain.
   */
  maxBytes: number;
}

/** One page of a conversation and the version it was read at. */
export interface ChatPage {
  /** The conversation's version when the page was read (0: unknown conversation). */
  version: number;
  /** The page's messages, oldest first. */
  messages: StoredChatMessage[];
  /** The 0-based position of the page's first message (its `before` cursor is `from + 1`). */
  from: number;
}

/**
 * The storage layer of conversation memory: dumb, policy-free, ordered and idempotent storage of
 * the messages of each conversation. Every backend passes the shared conformance suite
 * (`runChatMemoryStoreConformance` from `./testing`).
 *
 * Guarantees: read-your-writes; the messages of one `add` land contiguously and in order, or none
 * do; a total order per conversation under concurrent writers; idempotency by message id (ids
 * already stored are skipped; a batch whose every message is stored is a no-op whatever its
 * `expectedVersion`); bad input is rejected before any I/O.
 */
export interface ChatMemoryStore {
  /** Every message of the conversation, oldest first; `[]` if there are none. */
  get(conversationId: string): Promise<StoredChatMessage[]>;

  /**
   * Appends a batch atomically. Messages without an `id` get a UUID. A duplicate id inside the batch
   * is an `InvalidMessageError`; ids already stored are skipped without comparing content.
   */
  add(
    conversationId: string,
    messages: ChatMessage[],
    options?: AddMessagesOptions,
  ): Promise<AddMessagesResult>;

  /** Removes the conversation and its ids (which may then be used again). */
  clear(conversationId: string): Promise<void>;

  /** The newest `n` messages, oldest first. */
  tail(conversationId: string, n: number): Promise<StoredChatMessage[]>;

  /**
   * Paging, oldest first: up to `limit` messages stored after version `fromVersion`, i.e. the
   * messages at positions `fromVersion + 1 … fromVersion + limit` (1-based).
   */
  range(conversationId: string, fromVersion: number, limit: number): Promise<StoredChatMessage[]>;

  /** The count of stored messages; 0 for an unknown conversation. */
  version(conversationId: string): Promise<number>;

  /**
   * Optional: a page of the newest messages up to `before`, cut by a byte budget, and the version
   * it was read at, consistent with each other — one statement on PostgreSQL, one script on Redis,
   * one read transaction on SQLite; the other built-in stores read the version, then ranges. The
   * HTTP read route uses it (and reads `version` then `range` chunks from a store without it).
   */
  page?(conversationId: string, options: ChatPageOptions): Promise<ChatPage>;
}
