import { type RunClaim, type RunClaimed, claimInSteps } from './run-claim.js';
import { newestFirst } from './ordered-index.js';
import {
  DEFAULT_RUN_RETENTION_MS,
  type GuardedPut,
  type OrderedIndexEntry,
  type RunStore,
} from './run-store.interface.js';

/** How many runs the in-memory run store keeps at most (the oldest go first). */
export const DEFAULT_IN_MEMORY_MAX_RUNS = 5_000;

/**
 * Process-local run store (the memory backend): not shared, not durable, and bounded — past
 * `maxRuns` runs, the least recently written go first.
 */
export class InMemoryRunStore implements RunStore {
  private readonly runs = new Map<string, { expiresAt: number; entries: Map<string, string> }>();
  /** Index → run id → expiry; not counted against `maxRuns`, trimmed as it grows. */
  private readonly indexes = new Map<string, Map<string, number>>();
  /** Ordered index → its entries, oldest first (ties by run id). */
  private readonly ordered = new Map<string, OrderedIndexEntry[]>();

  constructor(
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
    private readonly now: () => number = Date.now,
    private readonly maxRuns = DEFAULT_IN_MEMORY_MAX_RUNS,
  ) {}

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    return putUnlessThere(this.writable(runId), key, value);
  }

  async putIfAbsentGuarded(
    runId: string,
    [guardKey, guardValue]: readonly [string, string],
    [key, value]: readonly [string, string],
  ): Promise<GuardedPut> {
    // No await between the writes: atomic within the process.
    const entries = this.writable(runId);
    const guard = putUnlessThere(entries, guardKey, guardValue);
    return guard === guardValue ? { guard, entry: putUnlessThere(entries, key, value) } : { guard };
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    const run = this.runs.get(runId);
    return run && run.expiresAt > this.now() ? run.entries.get(key) : undefined;
  }

  async entries(runId: string): Promise<Array<[string, string]>> {
    const run = this.runs.get(runId);
    return run && run.expiresAt > this.now() ? [...run.entries] : [];
  }

  async replaceIf(runId: string, key: string, expected: string, value: string): Promise<boolean> {
    // No await between the read and the write: atomic within the process.
    const run = this.runs.get(runId);
    if (!run || run.expiresAt <= this.now() || run.entries.get(key) !== expected) return false;
    this.writable(runId).set(key, value);
    run.expiresAt = this.now() + this.retentionMs;
    return true;
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    this.writable(runId).set(key, value);
    this.runs.get(runId)!.expiresAt = this.now() + this.retentionMs;
  }

  async removeEntry(runId: string, key: string): Promise<void> {
    this.runs.get(runId)?.entries.delete(key);
  }

  async addToIndex(index: string, runId: string): Promise<void> {
    const now = this.now();
    const entries = this.indexes.get(index) ?? new Map<string, number>();
    for (const [id, expiresAt] of entries)
      if (expiresAt <= now || !this.runs.has(id)) entries.delete(id);
    entries.set(runId, now + this.retentionMs);
    this.indexes.set(index, entries);
  }

  async addToOrderedIndex(index: string, runId: string, at: number): Promise<void> {
    const entries = this.ordered.get(index) ?? [];
    const live = this.now() - this.retentionMs;
    // Trimmed from the oldest end as it grows: what expired or was evicted goes.
    while (entries.length > 0 && (entries[0]!.at <= live || !this.runs.has(entries[0]!.runId)))
      entries.shift();
    const entry = { runId, at };
    const place = sortedPlace(entries, entry);
    if (entries[place]?.runId !== runId || entries[place]?.at !== at)
      entries.splice(place, 0, entry);
    this.ordered.set(index, entries);
  }

  /** From the cursor's place in the index (kept sorted), newest first: `limit` live entries. */
  async orderedPage(
    index: string,
    limit: number,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]> {
    const entries = this.ordered.get(index) ?? [];
    const live = this.now() - this.retentionMs;
    const page: OrderedIndexEntry[] = [];
    let i = (before ? sortedPlace(entries, before) : entries.length) - 1;
    for (; i >= 0 && page.length < limit; i -= 1) {
      const entry = entries[i]!;
      if (entry.at > live && this.runs.has(entry.runId)) page.push({ ...entry });
    }
    return page;
  }

  async indexed(index: string): Promise<string[]> {
    const now = this.now();
    return [...(this.indexes.get(index) ?? [])]
      .filter(([, expiresAt]) => expiresAt > now)
      .map(([runId]) => runId);
  }

  /** The claim's steps one after another, each atomic on its own. */
  claim(claim: RunClaim): Promise<RunClaimed> {
    return claimInSteps(this, claim);
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    for (const runId of runIds) {
      this.runs.delete(runId);
      this.indexes.delete(runId);
      this.ordered.delete(runId);
    }
  }

  async sweep(limit: number): Promise<number> {
    let removed = 0;
    for (const [runId, run] of this.runs) {
      if (removed >= limit) break;
      if (run.expiresAt <= this.now()) {
        this.runs.delete(runId);
        removed += 1;
      }
    }
    return removed;
  }

  /** The run's entries for a write: a fresh run when it expired; the run becomes the newest. */
  private writable(runId: string): Map<string, string> {
    let run = this.runs.get(runId);
    if (!run || run.expiresAt <= this.now()) {
      run = { expiresAt: this.now() + this.retentionMs, entries: new Map() };
    }
    // Re-inserted on every write: the map's order is least to most recently written.
    this.runs.delete(runId);
    this.runs.set(runId, run);
    while (this.runs.size > this.maxRuns) this.runs.delete(this.runs.keys().next().value!);
    return run.entries;
  }
}

/** Where `entry` goes in `entries` (oldest first): the first place whose entry is not older. */
function sortedPlace(entries: readonly OrderedIndexEntry[], entry: OrderedIndexEntry): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (newestFirst(entries[middle]!, entry) > 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Stores `value` under `key` unless something is there; answers what is there. */
function putUnlessThere(entries: Map<string, string>, key: string, value: string): string {
  if (!entries.has(key)) entries.set(key, value);
  return entries.get(key)!;
}
