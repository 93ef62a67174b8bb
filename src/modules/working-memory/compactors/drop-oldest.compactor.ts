import type { EvictionPolicy } from '../backends/working-memory-backend.interface.js';

/** Options of {@link DropOldestCompactor}. */
export interface DropOldestOptions {
  /** Evict down to this size (default 512 KiB). */
  targetBytes?: number;
  /** Keys starting with any of these are never evicted (default none). */
  protectedPrefixes?: string[];
}

/**
 * The default compactor (DESIGN §9): evicts least-recently-used entries down to `targetBytes`,
 * skipping protected prefixes and never the entry being written. It runs inside the backend's
 * atomic write, so a write that still does not fit leaves everything as it was.
 */
export class DropOldestCompactor {
  readonly policy: EvictionPolicy;

  constructor(options: DropOldestOptions = {}) {
    this.policy = {
      targetBytes: options.targetBytes ?? 512 * 1024,
      protectedPrefixes: options.protectedPrefixes ?? [],
    };
  }
}
