import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { assertConversationId } from '../../../common/messages/message-validation.js';
import type { JsonValue } from '../interfaces/longterm-store.interface.js';
import { assertEntityId } from '../validation/longterm-arguments.js';

import {
  CONVERSATION_PREFIX,
  MESSAGES_PREFIX,
  derivedEntityId,
  derivedRecordText,
  formedEntityOf,
  isDerivedEntity,
} from './derived-entities.js';

export { derivedRecordText, formedEntityOf, isDerivedEntity };

/** Digits of a message's position in its index key (sorts keys by position). */
const POSITION_DIGITS = 12;

/** Most characters of a message's text that are indexed (its beginning). */
export const MAX_INDEXED_MESSAGE_CHARS = 16_000;

/** One message of a committed turn, as the index stores it (the value of its record). */
export interface IndexedMessage {
  conversationId: string;
  /** 1-based position in the conversation (the version its append made). */
  position: number;
  messageId: string;
  role: 'user' | 'assistant';
  /** The message's text (its text parts), cut to its first 16,000 characters. */
  text: string;
}

/** The entity whose records are the messages `entityId` took part in. */
export function messageEntityOf(entityId: string): string {
  return derivedEntityId(MESSAGES_PREFIX, entityId);
}

/** The entity listing which entities indexed messages of a conversation (one record each). */
export function conversationEntityOf(conversationId: string): string {
  return derivedEntityId(CONVERSATION_PREFIX, conversationId);
}

/**
 * The key prefix of a conversation's messages: its id's length, then the id, then `/`. The length
 * makes prefixes of different conversations disjoint whatever characters their ids hold.
 */
export function conversationKeyPrefix(conversationId: string): string {
  return `${conversationId.length}:${conversationId}/`;
}

/** A message's key: its conversation's prefix and its zero-padded position. */
export function messageKey(conversationId: string, position: number): string {
  return `${conversationKeyPrefix(conversationId)}${String(position).padStart(POSITION_DIGITS, '0')}`;
}

/** The message a derived record holds, or `undefined` for a value that is not one. */
export function indexedMessageOf(value: JsonValue): IndexedMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { conversationId, position, messageId, role, text } = value;
  if (
    typeof conversationId !== 'string' ||
    typeof position !== 'number' ||
    typeof messageId !== 'string' ||
    (role !== 'user' && role !== 'assistant') ||
    typeof text !== 'string'
  )
    return undefined;
  return { conversationId, position, messageId, role, text };
}

/** A message's text cut to {@link MAX_INDEXED_MESSAGE_CHARS} without splitting a surrogate pair. */
export function indexableText(text: string): string {
  return textCutAt(text, MAX_INDEXED_MESSAGE_CHARS);
}

/** `text` cut to its first `maxChars` UTF-16 units, without splitting a surrogate pair. */
export function textCutAt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

/**
 * Checks an entity id the message index is used for: a long-term entity id that is not one of the
 * index's own (U+001F …), which only the package may name.
 */
export function assertIndexableEntity(entityId: unknown): asserts entityId is string {
  assertEntityId(entityId);
  if (isDerivedEntity(entityId))
    throw new InvalidArgumentError('entityId', 'must not start with U+001F (the message index’s)');
}

/** Checks the messages given to `indexMessages`, naming the field at fault (`messages[1].role`). */
export function assertIndexedMessages(messages: unknown): asserts messages is IndexedMessage[] {
  if (!Array.isArray(messages)) throw new InvalidArgumentError('messages', 'must be an array');
  messages.forEach((message: Partial<IndexedMessage>, i) => {
    const at = `messages[${i}]`;
    if (typeof message !== 'object' || message === null)
      throw new InvalidArgumentError(at, 'must be an object');
    assertConversationId(message.conversationId, `${at}.conversationId`);
    if (!Number.isSafeInteger(message.position) || message.position! < 1)
      throw new InvalidArgumentError(`${at}.position`, 'must be an integer ≥ 1');
    if (typeof message.messageId !== 'string' || message.messageId.length === 0)
      throw new InvalidArgumentError(`${at}.messageId`, 'must be a non-empty string');
    if (message.role !== 'user' && message.role !== 'assistant')
      throw new InvalidArgumentError(`${at}.role`, 'must be user or assistant');
    if (typeof message.text !== 'string')
      throw new InvalidArgumentError(`${at}.text`, 'must be a string');
  });
}
