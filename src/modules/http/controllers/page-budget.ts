import type { StoredChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';

/** Most messages or records read from a store per round while a page fills. */
const CHUNK = 50;
/** The first round's size: then as many as the budget left holds at the average size so far. */
const FIRST_CHUNK = 8;

/** How many items the next round reads: what the budget left holds at the average so far, plus one. */
function nextChunk(used: number, taken: number, budget: number): number {
  if (taken === 0) return FIRST_CHUNK;
  const average = Math.max(1, used / taken);
  return Math.max(1, Math.min(CHUNK, Math.ceil((budget - used) / average) + 1));
}

/** The bytes `value` takes as JSON text (UTF-8). */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The longest head of `items` whose JSON fits in `budget` bytes, and never empty when `items` is
 * not: a page always moves on, even past one item larger than the budget.
 */
export function headWithinBudget<T>(items: readonly T[], budget: number): T[] {
  let used = 0;
  for (let i = 0; i < items.length; i += 1) {
    used += jsonBytes(items[i]);
    if (used > budget && i > 0) return items.slice(0, i);
  }
  return [...items];
}

/**
 * Up to `count` messages ending just before 0-based position `end`, newest read first, stopping
 * early when the next older message would take the page over `budget` bytes (the newest one is
 * always taken). Reads the store a chunk at a time, each sized by what the budget left holds at the
 * average size so far, so memory stays near the budget however large the history. Returns the
 * messages oldest first and the 0-based position of the first one.
 */
export async function messagesWithinBudget(
  store: ChatMemoryStore,
  conversationId: string,
  page: { end: number; count: number; budget: number },
): Promise<{ messages: StoredChatMessage[]; from: number }> {
  const taken: StoredChatMessage[] = [];
  let used = 0;
  let from = page.end;
  while (from > 0 && taken.length < page.count) {
    const size = Math.min(
      nextChunk(used, taken.length, page.budget),
      page.count - taken.length,
      from,
    );
    const chunk = await store.range(conversationId, from - size, size);
    if (chunk.length < size) break; // cleared meanwhile: the page ends here
    for (let i = chunk.length - 1; i >= 0; i -= 1) {
      used += jsonBytes(chunk[i]);
      if (used > page.budget && taken.length > 0) return { messages: taken.reverse(), from };
      taken.push(chunk[i]!);
      from -= 1;
    }
  }
  return { messages: taken.reverse(), from };
}

/**
 * A page of a store without `page`: its version first, then the messages up to it
 * ({@link messagesWithinBudget}), so the page and its `before` cursor agree while turns arrive.
 */
export async function pageByRanges(
  store: ChatMemoryStore,
  conversationId: string,
  before: number | undefined,
  count: number,
  budget: number,
): Promise<{ version: number; messages: StoredChatMessage[]; from: number }> {
  const version = await store.version(conversationId);
  const end = before === undefined ? version : Math.min(before - 1, version);
  const page = await messagesWithinBudget(store, conversationId, { end, count, budget });
  return { version, ...page };
}

/**
 * Up to `limit` records of a key-ordered search after key `after`, read a chunk at a time, ending
 * early when the next one would take the page over `budget` bytes (the first is always taken);
 * `more` when records may follow.
 */
export async function recordsWithinBudget<T extends { key: string }>(
  search: (limit: number, after?: string) => Promise<T[]>,
  page: { limit: number; after?: string; budget: number },
): Promise<{ records: T[]; more: boolean }> {
  const records: T[] = [];
  let used = 0;
  let after = page.after;
  while (records.length < page.limit) {
    const size = Math.min(
      nextChunk(used, records.length, page.budget),
      page.limit - records.length,
    );
    const chunk = await search(size, after);
    for (const record of chunk) {
      used += jsonBytes(record);
      if (used > page.budget && records.length > 0) return { records, more: true };
      records.push(record);
    }
    if (chunk.length < size) return { records, more: false };
    after = chunk.at(-1)!.key;
  }
  return { records, more: true };
}
