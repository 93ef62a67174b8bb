/** What a backend's page read returns: the version, and stored JSON newest first. */
export interface StoredPage {
  version: number;
  newestFirst: string[];
}

/** The bytes of a stored message's JSON (UTF-8), as a page's byte budget counts them. */
export function storedBytes(json: string): number {
  return Buffer.byteLength(json);
}

/**
 * The newest of `newestFirst` (stored JSON, newest first) that fit in `maxBytes` together, oldest
 * first; the newest is always taken.
 */
export function withinBudget(newestFirst: readonly string[], maxBytes: number): string[] {
  const taken: string[] = [];
  let used = 0;
  for (const json of newestFirst) {
    used += storedBytes(json);
    if (used > maxBytes && taken.length > 0) break;
    taken.push(json);
  }
  return taken.reverse();
}

/** Most messages a page reader reads per round (the generic one) or per statement (SQLite's). */
export const PAGE_CHUNK = 50;

/**
 * The generic page reader, for a backend without a one-round-trip one: the version, then chunks
 * of `range` ending at the page's end, newest first, until the page is full or over its budget —
 * so memory stays near the budget however large the messages.
 */
export async function readPageInChunks(
  reader: {
    readVersion(): Promise<number>;
    readRange(fromVersion: number, limit: number): Promise<string[]>;
  },
  end: number | undefined,
  count: number,
  maxBytes: number,
): Promise<StoredPage> {
  const version = await reader.readVersion();
  let from = end === undefined ? version : Math.min(end, version);
  const newestFirst: string[] = [];
  let used = 0;
  while (from > 0 && newestFirst.length < count && used <= maxBytes) {
    const size = Math.min(PAGE_CHUNK, count - newestFirst.length, from);
    const chunk = await reader.readRange(from - size, size);
    if (chunk.length < size) break; // cleared meanwhile: the page ends here
    for (let i = chunk.length - 1; i >= 0; i -= 1) {
      newestFirst.push(chunk[i]!);
      used += storedBytes(chunk[i]!);
    }
    from -= size;
  }
  return { version, newestFirst };
}

/** A page statement's rows (the version on each; one row without a body when the page is empty). */
export function pageOf(rows: Array<{ version: number | string; body: string | null }>): StoredPage {
  return {
    version: Number(rows[0]?.version ?? 0),
    newestFirst: rows.flatMap((row) => (row.body === null ? [] : [row.body])),
  };
}
