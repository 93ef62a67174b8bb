import type { OrderedIndexEntry } from './run-store.interface.js';

/** Digits of a time in an ordered index's sortable key: ms since 1970 fit until the year 33658. */
const TIME_DIGITS = 15;

/** Sorts entries of an ordered index newest first, ties by run id descending. */
export function newestFirst(a: OrderedIndexEntry, b: OrderedIndexEntry): number {
  return b.at - a.at || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0);
}

/** Whether `entry` comes strictly after `cursor` in newest-first order (always, without a cursor). */
export function pastCursor(entry: OrderedIndexEntry, cursor?: OrderedIndexEntry): boolean {
  return !cursor || newestFirst(cursor, entry) < 0;
}

/**
 * The key of an ordered index's entry in a table keyed by text: the time zero-padded, then the run
 * id, so byte order is time order (run ids never hold `/`).
 */
export function orderedKey({ at, runId }: OrderedIndexEntry): string {
  return `${String(at).padStart(TIME_DIGITS, '0')}/${runId}`;
}

/** The entry of a key made by {@link orderedKey}. */
export function parseOrderedKey(key: string): OrderedIndexEntry {
  const slash = key.indexOf('/');
  return { at: Number(key.slice(0, slash)), runId: key.slice(slash + 1) };
}
