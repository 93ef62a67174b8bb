import type { AddMessagesOptions } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../../common/messages/chat-message.interface.js';
import type { ToolSpec } from '../../llm/interfaces/llm.interface.js';

/** What will be sent along with the messages, so a policy can account for it. */
export interface PrepareOptions {
  /** System prompts the caller prepends when sending (counted by a token budget; not returned). */
  systemPrompts?: string[];
  /** Tool schemas sent with the messages (counted by a token budget). */
  tools?: ToolSpec[];
}

/**
 * The policy layer of conversation memory: loads and persists history through a store,
 * and decides what of it is sent. The store always keeps the full history; trimming happens only in
 * `prepare`, which is pure: it never mutates its input and never writes to the store.
 */
export interface MemoryProvider {
  /** The whole stored history and its version (read-your-writes). */
  history(conversationId: string): Promise<{ messages: StoredChatMessage[]; version: number }>;
  /**
   * Optional: the newest part of the history that `prepare` can use, ending at version `end`
   * (default: the current one) — what a bounded policy (a window, a token budget) reads instead of
   * the whole history, so a turn costs the same at message 10 and at message 10,000. `from` is the
   * version the part starts after; `version` the current version.
   */
  recentHistory?(
    conversationId: string,
    end?: number,
  ): Promise<{ messages: StoredChatMessage[]; version: number; from: number }>;
  /** Appends messages (atomically, idempotently by id; optimistic `expectedVersion`). */
  append(
    conversationId: string,
    messages: ChatMessage[],
    options?: AddMessagesOptions,
  ): Promise<{ version: number }>;
  /** What to send to the model for these messages (history + the current turn). */
  prepare(
    conversationId: string,
    messages: ChatMessage[],
    options?: PrepareOptions,
  ): Promise<ChatMessage[]>;
  /** Deletes the conversation's whole stored history. */
  clear(conversationId: string): Promise<void>;
}
