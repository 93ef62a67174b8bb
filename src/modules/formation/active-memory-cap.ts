import { type Consolidation, createdBy, isActive } from './consolidation-rules.js';
import type { FormedMemories } from './formed-memories.js';
import type { AppliedOperation, FormedMemory } from './formed-memory.interface.js';

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

/** Marks the reason of an ADD the cap turned into NONE (`overruled` ends with it). */
export const OVER_CAP = '(formation.maxActive)';

/** Whether a version, as the job writes it, is active (not closed within the job). */
const open = (memory: FormedMemory) =>
  memory.validUntil === undefined && memory.supersededBy === undefined;

/**
 * Counts the entity's memories active at `at` and the bytes of their text, reading every stored
 * version page by page, as they were before `consolidation` was written: the versions it creates
 * are left out and the versions of the entity it closes count as held, so a retry after a crash
 * mid-write counts what its first attempt counted (unless another write of the entity came
 * between).
 */
export async function tallyActive(
  memories: FormedMemories,
  entityId: string,
  at: number,
  consolidation: Consolidation,
): Promise<ActiveMemoryTally> {
  const created = createdBy(consolidation);
  const closing = new Set(
    consolidation.writes.flatMap((memory) =>
      !open(memory) && !created.has(memory.id) ? [memory.id] : [],
    ),
  );
  const tally = { count: 0, bytes: 0 };
  let after: string | undefined;
  for (;;) {
    const page = await memories.list(entityId, {
      state: 'all',
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const memory of page.memories)
      if (!created.has(memory.id) && (closing.has(memory.id) || isActive(memory, at))) {
        tally.count += 1;
        tally.bytes += Buffer.byteLength(memory.text);
      }
    if (page.next === undefined) return tally;
    after = page.next;
  }
}

/**
 * A job's consolidation within the entity's cap, weighed on what the job leaves active: the
 * versions of the entity it closes free their room and the new versions of its updates take theirs
 * (a correction never waits for room, so an update that lengthens a memory may take the bytes past
 * the cap by its growth); then its ADDs, in candidate order, while the active memories stay within
 * `cap`. An ADD past it becomes NONE (`overruled` says why, ending with {@link OVER_CAP}) and is not
 * written. An ADD the job itself closes again takes no room. Nothing already held is evicted.
 */
export function withinCap(
  consolidation: Consolidation,
  held: ActiveMemoryTally,
  cap: ActiveMemoryCap,
): Consolidation {
  const created = createdBy(consolidation);
  const adds = new Set(
    consolidation.operations.flatMap((operation) =>
      operation.op === 'ADD' && operation.memoryId ? [operation.memoryId] : [],
    ),
  );
  const tally = { ...held };
  const take = (memory: FormedMemory, sign: 1 | -1) => {
    tally.count += sign;
    tally.bytes += sign * Buffer.byteLength(memory.text);
  };
  for (const memory of consolidation.writes)
    if (!created.has(memory.id) && !open(memory)) take(memory, -1);
    else if (created.has(memory.id) && !adds.has(memory.id) && open(memory)) take(memory, 1);
  const byId = new Map(consolidation.writes.map((memory) => [memory.id, memory]));
  const dropped = new Set<string>();
  const operations = consolidation.operations.map((operation): AppliedOperation => {
    const added = operation.op === 'ADD' && operation.memoryId && byId.get(operation.memoryId);
    if (!added || !open(added)) return operation;
    const overCount = tally.count + 1 > cap.count;
    const overBytes = tally.bytes + Buffer.byteLength(added.text) > cap.bytes;
    if (!overCount && !overBytes) {
      take(added, 1);
      return operation;
    }
    dropped.add(added.id);
    const full = [
      ...(overCount ? [`${cap.count} active memories`] : []),
      ...(overBytes ? [`${cap.bytes} bytes of active memories`] : []),
    ].join(' and ');
    return {
      candidate: operation.candidate,
      op: 'NONE',
      overruled: `the entity holds its maximum of ${full} ${OVER_CAP}`,
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
