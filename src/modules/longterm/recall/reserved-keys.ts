/**
 * Keys of an entity's records that memory formation writes. They start with U+001F, a character the
 * HTTP module's keys cannot hold, so no caller can write one through the REST API; the records are
 * the entity's own, so its erasure (`deleteEntity`) erases them and its erasure mark refuses a late
 * formation's writes like any stale run's.
 */
export const FORMED_MEMORY_KEY_PREFIX = '\u001fmemory\u001f';
/** The record a formation job leaves with its writes (what it did), under this prefix and its id. */
export const FORMATION_JOB_KEY_PREFIX = '\u001fformation\u001f';

/** Whether a key is one memory formation reserves. */
export function isReservedKey(key: string): boolean {
  return key.startsWith(FORMED_MEMORY_KEY_PREFIX) || key.startsWith(FORMATION_JOB_KEY_PREFIX);
}

/**
 * What a reserved record is found by: a formed memory by its `text` (not its ids, kind or sources),
 * a formation job's record by nothing.
 */
export function reservedRecordText(key: string, value: unknown): string {
  if (!key.startsWith(FORMED_MEMORY_KEY_PREFIX)) return '';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  const { text } = value as { text?: unknown };
  return typeof text === 'string' ? text : '';
}
