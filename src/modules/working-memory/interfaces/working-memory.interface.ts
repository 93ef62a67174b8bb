/** A JSON value as working memory stores it. */
export type WorkingMemoryValue = unknown;

/**
 * Where a handle's summarizing compactor keeps summaries, by a digest of what was folded: `compute`
 * runs only if none is recorded. The agent passes its run cache, so a replayed run folds the same
 * way on any worker.
 */
export type SummaryCache = (key: string, compute: () => Promise<string>) => Promise<string>;

/** Options of `WorkingMemoryService.for`. */
export interface WorkingMemoryHandleOptions {
  /** Where summaries are kept (default: the compactor's process-local cache). */
  summaries?: SummaryCache;
}

/**
 * One conversation's scratchpad. Values are JSON; the size is the sum of the UTF-8 bytes of every
 * stored key and value (keys count, so names cannot bypass the cap). `get`, `set` and `append`
 * count as use (they move the key to the most recent end and keep the memory alive); `keys`, `ring`
 * and `sizeBytes` do not.
 */
export interface WorkingMemoryHandle {
  readonly conversationId: string;
  /** The value stored under `key`, parsed, or `undefined` if there is none. */
  get<T = WorkingMemoryValue>(key: string): Promise<T | undefined>;
  /** Throws `WorkingMemoryOverflowError` (and changes nothing) if the value cannot fit under the cap. */
  set(key: string, value: WorkingMemoryValue): Promise<void>;
  /** Removes the key, if present; removing the last key deletes the memory. */
  delete(key: string): Promise<void>;
  /** Appends to the ring at `key`, keeping its newest `maxItems` (default 64). */
  append(key: string, item: WorkingMemoryValue, maxItems?: number): Promise<void>;
  /** The ring's items, oldest first (`[]` if none). */
  ring<T = WorkingMemoryValue>(key: string): Promise<T[]>;
  /** Keys from least to most recently used. */
  keys(): Promise<string[]>;
  /** The bytes the memory counts against its cap (0 if it has none). */
  sizeBytes(): Promise<number>;
}

/** The caps of one memory. */
export interface WorkingMemoryLimits {
  /** Hard cap (default 1 MiB). */
  capBytes: number;
  /** Soft cap: crossing it logs a warning and runs one compaction pass (default 75 % of the cap). */
  softCapBytes: number;
}

/** A snapshot of one memory, for the on-expire hook and `WorkingMemoryService.inspect`. */
export interface WorkingMemorySnapshot {
  conversationId: string;
  /**
   * Every entry, parsed, keys from least to most recently used; `sizeBytes` is what the entry
   * counts against the cap (its key's and its JSON value's UTF-8 bytes).
   */
  entries: Array<{ key: string; value: WorkingMemoryValue; sizeBytes: number }>;
  sizeBytes: number;
  /** When it was last used (epoch ms). */
  lastUsedAt: number;
}

/** Called for an idle memory before it is deleted (e.g. to save it to long-term memory); if it throws, nothing is deleted. */
export type WorkingMemoryExpireHook = (snapshot: WorkingMemorySnapshot) => Promise<void>;
