import { isActive } from './consolidation-rules.js';
import type { Consolidation } from './consolidation-rules.js';
import type { FormedMemories } from './formed-memories.js';
import type { AppliedOperation } from './formed-memory.interface.js';

/** How many active memories an entity may hold, and how many bytes of text (UTF-8) they may hold. */
export interface ActiveMemoryCap {
  /** Active memories (default 2,000). */
  count: number;
  /** Bytes of their text, UTF-8 (default 512 KiB). */
  bytes: number;
}

/** The default cap. */
export const DEFAULT_ACTIVE_MEMORY_CAP: Readonly<ActiveMemoryCap> = Object.freeze({
  count: 2_000,
  bytes: 512 * 1024,
});

/** What an entity's active memories hold now. */
export interface ActiveMemoryTally {
  count: number;
  bytes: number;
}

/** Versions one page of the tally reads. */
const PAGE = 500;

/**
 * Counts the entity's memories active at `at` and the bytes of their text, reading every version
 * page by page, as they were before `consolidation` was written: its new versions are left out and
 * the versions it closes count as active, so a retry after a crash mid-write counts what its first
 * attempt counted.
 */
export async function tallyActive(
  memories: FormedMemories,
  entityId: string,
  at: number,
  consolidation: Consolidation,
): Promise<ActiveMemoryTally> {
  const fresh = new Set<string>();
  const closing = new Set<string>();
  for (const memory of consolidation.writes)
    (memory.validUntil === undefined ? fresh : closing).add(memory.id);
  const tally = { count: 0, bytes: 0 };
  let after: string | undefined;
  for (;;) {
    const page = await memories.list(entityId, {
      state: 'all',
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const memory of page.memories)
      if (!fresh.has(memory.id) && (closing.has(memory.id) || isActive(memory, at))) {
        tally.count += 1;
        tally.bytes += Buffer.byteLength(memory.text);
      }
    if (page.next === undefined) return tally;
    after = page.next;
  }
}

/**
 * A job's consolidation within the entity's cap: its ADDs are taken in candidate order while the
 * active memories stay within `cap` (counting what the job's own updates and retractions change);
 * an ADD past it becomes NONE (`overruled` says why) and is not written. Updates and retractions
 * always apply: a correction never waits for room, so an update that lengthens a memory may take
 * the bytes past the cap by at most its growth. Nothing already held is evicted.
 */
export function withinCap(
  consolidation: Consolidation,
  held: ActiveMemoryTally,
  cap: ActiveMemoryCap,
): Consolidation {
  const byId = new Map(consolidation.writes.map((memory) => [memory.id, memory]));
  const tally = { ...held };
  // Updates and retractions first: what they free (or take) is known before any ADD is weighed.
  for (const operation of consolidation.operations) {
    const closed = operation.target ? byId.get(operation.target) : undefined;
    if (operation.op === 'INVALIDATE' && closed) {
      tally.count -= 1;
      tally.bytes -= Buffer.byteLength(closed.text);
    } else if (operation.op === 'UPDATE' && closed && operation.memoryId) {
      const next = byId.get(operation.memoryId);
      if (next) tally.bytes += Buffer.byteLength(next.text) - Buffer.byteLength(closed.text);
    }
  }
  const dropped = new Set<string>();
  const operations = consolidation.operations.map((operation): AppliedOperation => {
    if (operation.op !== 'ADD' || !operation.memoryId) return operation;
    const size = Buffer.byteLength(byId.get(operation.memoryId)?.text ?? '');
    if (tally.count + 1 <= cap.count && tally.bytes + size <= cap.bytes) {
      tally.count += 1;
      tally.bytes += size;
      return operation;
    }
    dropped.add(operation.memoryId);
    const full =
      tally.count + 1 > cap.count
        ? `${cap.count} active memories`
        : `${cap.bytes} bytes of active memories`;
    return {
      candidate: operation.candidate,
      op: 'NONE',
      overruled: `the entity holds its maximum of ${full} (formation.maxActive)`,
    };
  });
  if (dropped.size === 0) return consolidation;
  return {
    writes: consolidation.writes.filter((memory) => !dropped.has(memory.id)),
    // A duplicate of a dropped ADD points at nothing stored: it is a plain NONE.
    operations: operations.map((operation) =>
      operation.op === 'NONE' && operation.memoryId && dropped.has(operation.memoryId)
        ? {
            candidate: operation.candidate,
            op: 'NONE',
            ...(operation.overruled ? { overruled: operation.overruled } : {}),
          }
        : operation,
    ),
  };
}
