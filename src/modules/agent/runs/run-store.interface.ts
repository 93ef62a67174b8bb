import type { RunClaim, RunClaimed } from './run-claim.js';

/**
 * Durable per-run entries: the run cache (base version, each model response and tool step) and the
 * run record, all keyed by `runId`. Values are JSON text. Entries expire after the store's retention
 * (run records, jobs and the run cache share one retention, default 7 days).
 */
export interface RunStore {
  /** Stores `value` under (`runId`, `key`) unless something is there; returns what is stored. */
  putIfAbsent(runId: string, key: string, value: string): Promise<string>;
  /**
   * Stores `guard` as `putIfAbsent` would, and `entry` likewise only if what is then stored under
   * the guard's key is the guard's own value, in one commit (one statement, one script) where the
   * backend allows it. Resolves what is stored under the guard's key, and under the entry's when it
   * was stored or found (`undefined` when the guard held another value and nothing was written).
   * A run's first attempt stores its base version with its first step this way.
   */
  putIfAbsentGuarded(
    runId: string,
    guard: readonly [key: string, value: string],
    entry: readonly [key: string, value: string],
  ): Promise<GuardedPut>;
  /** The value under (`runId`, `key`), or `undefined`. */
  get(runId: string, key: string): Promise<string | undefined>;
  /** Every live entry of a run, as `[key, value]` pairs (any order); `[]` for an unknown run. */
  entries(runId: string): Promise<Array<[string, string]>>;
  /**
   * Replaces the live value under (`runId`, `key`) with `value` only if it is exactly `expected`
   * (compare-and-set, atomic; renews the entry's retention). Resolves whether it replaced it.
   */
  replaceIf(runId: string, key: string, expected: string, value: string): Promise<boolean>;
  /** Stores `value`, replacing any (and renewing the entry's retention). */
  put(runId: string, key: string, value: string): Promise<void>;
  /** Removes the entry under (`runId`, `key`), if there is one. */
  removeEntry(runId: string, key: string): Promise<void>;
  /** Adds a run to an index (e.g. the runs of a conversation); each entry expires on its own. */
  addToIndex(index: string, runId: string): Promise<void>;
  /** The live runs of an index (any order). */
  indexed(index: string): Promise<string[]>;
  /**
   * Adds a run to an ordered index (e.g. the runs of a conversation, by creation time) at time
   * `at` (ms); the entry expires with the retention counted from `at`. Adding it again with the same
   * `at` changes nothing.
   */
  addToOrderedIndex(index: string, runId: string, at: number): Promise<void>;
  /**
   * Up to `limit` live entries of an ordered index, newest first (ties by run id, descending),
   * strictly after `before` in that order when given; read through the index, so a page costs the
   * same however many entries the index holds.
   */
  orderedPage(
    index: string,
    limit: number,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]>;
  /**
   * Binds a run to its owner and indexes it (see `RunClaim`): what `putIfAbsent`, `get`,
   * `addToOrderedIndex` and `addToIndex` would do in turn, in one commit where the backend makes
   * that cheaper than the steps (PostgreSQL, SQLite).
   */
  claim(claim: RunClaim): Promise<RunClaimed>;
  /** Removes every entry of the given runs, and the given indexes (plain or ordered). */
  deleteRuns(runIds: readonly string[]): Promise<void>;
  /** Removes expired entries, at most `limit`; returns how many went. */
  sweep(limit: number): Promise<number>;
}

/** What {@link RunStore.putIfAbsentGuarded} found stored. */
export interface GuardedPut {
  /** The value stored under the guard's key. */
  guard: string;
  /** The value stored under the entry's key; `undefined` when the guard held another value. */
  entry?: string;
}

/** Default retention of runs, jobs and the run cache: 7 days. */
export const DEFAULT_RUN_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** A run's place in an ordered index. */
export interface OrderedIndexEntry {
  runId: string;
  /** The time it was added at, in ms. */
  at: number;
}
