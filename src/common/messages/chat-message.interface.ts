import type { ContentPart } from './content-parts.js';
import type { ProviderMetadata } from './provider-metadata.js';

import type { ChatRole } from './chat-role.js';

export { CHAT_ROLES, type ChatRole } from './chat-role.js';

/** One tool call requested by an assistant message. */
export interface ToolCall {
  /** The provider's id of the call; the matching `tool` message carries it as `toolCallId`. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments as JSON text, exactly as the model produced them. */
  arguments: string;
  /**
   * What the provider attached to the call and needs back with it (OpenAI's Responses item id,
   * Gemini's thought signature), as the AI SDK gave it.
   */
  providerMetadata?: ProviderMetadata;
}

/**
 * One message of a conversation, in the library's provider-neutral shape (camelCase; LLM adapters
 * map it to each provider's wire format). Stored messages come back with exactly the fields they
 * were given, plus `id`.
 */
export interface ChatMessage {
  /** Stable id: the caller's, or a UUID the store assigns. Unique within a conversation. */
  id?: string;
  role: ChatRole;
  /**
   * The content: text, or parts (text, images, files, reasoning; see {@link ContentPart}), or
   * `null` for an assistant message that only calls tools. System and tool messages hold text.
   */
  content: string | ContentPart[] | null;
  /** Tool calls requested by an `assistant` message. */
  toolCalls?: ToolCall[];
  /** For a `tool` message: the id of the call it answers. Required on `tool` messages. */
  toolCallId?: string;
  /** Optional author name (e.g. the tool's name on a `tool` message). */
  name?: string;
  /** Free-form JSON metadata, stored and returned as given. */
  metadata?: Record<string, unknown>;
}

/** A message as it comes back from a store: its `id` is always set. */
export type StoredChatMessage = ChatMessage & { id: string };
