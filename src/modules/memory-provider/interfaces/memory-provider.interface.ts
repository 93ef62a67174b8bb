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
  clear(conversationId: string): Promise<void>;
}
