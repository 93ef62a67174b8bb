import type { WorkingMemoryLimits } from '../interfaces/working-memory.interface.js';

/**
 * The bytes an entry takes against the caps: its key's and its JSON value's UTF-8 bytes, so key
 * names cannot bypass the cap (0 for an absent entry).
 */
export function entryBytes(key: string, json: string | undefined): number {
  return json === undefined ? 0 : Buffer.byteLength(key) + Buffer.byteLength(json);
}

/** How the default compactor evicts: least recently used first, down to `targetBytes`. */
export interface EvictionPolicy {
  targetBytes: number;
  /** Keys starting with any of these are never evicted. */
  protectedPrefixes: readonly string[];
}

/** One atomic write. */
export interface WriteRequest {
  key: string;
  /** The value's JSON text. */
  json: string;
  limits: WorkingMemoryLimits;
  /** Evict on crossing the soft cap (the drop-oldest compactor); absent: no eviction. */
  eviction?: EvictionPolicy;
  /**
   * Entries replaced in the same atomic step (the summarizing compactor's folded rings): they count
   * toward the caps, are never evicted, and are written only if the whole write is.
   */
  also?: ReadonlyArray<{ key: string; json: string }>;
  /** Write only if the memory's use counter is still this (a read-modify-write such as `append`). */
  expectedTouch?: number;
  now: number;
}

/** What a write did. */
export type WriteOutcome =
  | {
      status: 'ok';
      sizeBytes: number;
      /** The memory's size before the write (0 for a new memory). */
      previousSizeBytes: number;
      /** Whether the write created the memory. */
      created: boolean;
      evicted: string[];
      crossedSoftCap: boolean;
    }
  | { status: 'overflow'; attemptedBytes: number }
  /** The process-wide capacity of an in-process backend is reached (nothing was changed). */
  | { status: 'full' }
  | { status: 'conflict' };

/** What a write must be checked against before it is made: its owner's usage and the entry's. */
export interface Admission {
  /** Bytes and memories the owner (a tenant) holds. */
  ownerBytes: number;
  ownerConversations: number;
  /** Whether the conversation has a memory already. */
  exists: boolean;
  /** Bytes the entry being written takes now (0 if absent). */
  entryBytes: number;
}

/** A whole memory, for the on-expire hook. */
export interface BackendSnapshot {
  /** [key, JSON] from least to most recently used. */
  entries: Array<[string, string]>;
  sizeBytes: number;
  /** The use counter: the memory is deleted only if it is still this. */
  touch: number;
  lastUsedAt: number;
}

/**
 * The atomic primitives a working-memory backend provides. Every write decides the caps, the
 * eviction and the application together, so a write that does not fit changes nothing — not even
 * what the compactor would have evicted.
 */
export interface WorkingMemoryBackend {
  /** A value (JSON) and the use counter; `touch` makes it a use (LRU bump, kept alive). */
  read(
    conversationId: string,
    key: string,
    touch: boolean,
    now: number,
  ): Promise<{ json?: string; touch: number }>;
  /**
   * Makes one write atomically: checks the caps, evicts as `eviction` says, and writes the entry
   * (and `also`) in one step, or changes nothing and reports why.
   */
  write(conversationId: string, request: WriteRequest): Promise<WriteOutcome>;
  /**
   * Removes an entry; resolves the bytes it freed (0 if it was absent) and whether that was the
   * memory's last entry (the memory is then deleted: an empty one holds no place).
   */
  remove(
    conversationId: string,
    key: string,
    now: number,
  ): Promise<{ freedBytes: number; emptied: boolean }>;
  /** Keys from least to most recently used. */
  keys(conversationId: string): Promise<string[]>;
  /** The bytes the memory holds against its cap (0 if it has none). */
  size(conversationId: string): Promise<number>;
  /** Conversations whose last use is at or before `before`, at most `limit`. */
  idle(before: number, limit: number): Promise<string[]>;
  /** The whole memory, without counting as a use; `undefined` if it has none. */
  snapshot(conversationId: string): Promise<BackendSnapshot | undefined>;
  /** Deletes the memory if nothing used it since `touch`; returns whether it did. */
  deleteIfUntouched(conversationId: string, touch: number): Promise<boolean>;
  /** Deletes the memory whatever used it; resolves the bytes it held, `undefined` if it had none. */
  drop(conversationId: string): Promise<number | undefined>;
  /** Counts the memory as idle from `now` again (its on-expire hook failed: try it a TTL later). */
  postpone(conversationId: string, now: number): Promise<void>;
  /** The owner's usage and the entry's current size, for a quota check before a write. */
  admission(owner: string, conversationId: string, key: string): Promise<Admission>;
  /**
   * Adds to the owner's usage (negative to release). Usage may go below zero for a moment (a release
   * that lands before its write's charge); it is deleted only when both counts are exactly zero.
   */
  charge(owner: string, bytes: number, conversations: number): Promise<void>;
}
