import { createHash } from 'node:crypto';

/**
 * Messages are indexed as long-term records of entities derived from the ids they belong to, so the
 * text index, vectors, seq guard, erasure marks and background embedding all apply unchanged. A
 * derived id starts with U+001F, a character the HTTP module's ids cannot hold: no caller can read
 * or write one through the REST API.
 */
export const MESSAGES_PREFIX = '\u001fmessages\u001f';
/** The prefix of the entities listing which entities indexed a conversation's messages. */
export const CONVERSATION_PREFIX = '\u001fconversation\u001f';

/**
 * The prefix of the entities holding the memories formed from an entity's conversations (and the
 * records of the formation jobs that wrote them): the entity's own erasure erases them too.
 */
export const FORMED_PREFIX = '\u001fformed\u001f';

/** A derived entity's id: its prefix and a digest of the id it derives from (a fixed length). */
export function derivedEntityId(prefix: string, id: string): string {
  return `${prefix}${createHash('sha256').update(id).digest('base64url')}`;
}

/** The entity holding the memories formed for `entityId`. */
export function formedEntityOf(entityId: string): string {
  return derivedEntityId(FORMED_PREFIX, entityId);
}

/** Whether an entity id is one of the derived ids (the message index's, or formed memories'). */
export function isDerivedEntity(entityId: string): boolean {
  return (
    entityId.startsWith(MESSAGES_PREFIX) ||
    entityId.startsWith(CONVERSATION_PREFIX) ||
    entityId.startsWith(FORMED_PREFIX)
  );
}

/**
 * What a derived record is found by: its `text` (a message's, a formed memory's) — nothing for a
 * value without one, nor for a memory version that was closed (superseded or no longer valid), so
 * recall over formed memories finds what holds, not what used to.
 */
export function derivedRecordText(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const { text, supersededBy, validUntil } = value as Record<string, unknown>;
  if (supersededBy !== undefined || validUntil !== undefined) return '';
  return typeof text === 'string' ? text : '';
}
