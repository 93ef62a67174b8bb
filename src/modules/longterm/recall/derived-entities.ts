/**
 * Messages are indexed as long-term records of entities derived from the ids they belong to, so the
 * text index, vectors, seq guard, erasure marks and background embedding all apply unchanged. A
 * derived id starts with U+001F, a character the HTTP module's ids cannot hold: no caller can read
 * or write one through the REST API.
 */
export const MESSAGES_PREFIX = '\u001fmessages\u001f';
/** The prefix of the entities listing which entities indexed a conversation's messages. */
export const CONVERSATION_PREFIX = '\u001fconversation\u001f';

/** Whether an entity id is one of the message index's derived ids. */
export function isDerivedEntity(entityId: string): boolean {
  return entityId.startsWith(MESSAGES_PREFIX) || entityId.startsWith(CONVERSATION_PREFIX);
}

/** What a derived record is found by: a message's text; nothing for any other value. */
export function derivedRecordText(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const { text } = value as { text?: unknown };
  return typeof text === 'string' ? text : '';
}
