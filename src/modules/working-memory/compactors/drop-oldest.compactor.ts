import type { EvictionPolicy } from '../backends/working-memory-backend.interface.js';
import type { WorkingMemoryLimits } from '../interfaces/working-memory.interface.js';

/** Options of {@link DropOldestCompactor}. */
export interface DropOldestOptions {
  /** Evict down to this size (default: half of the module's `capBytes`, 512 KiB at the default cap). */
  targetBytes?: number;
  /** Keys starting with any of these are never evicted (default none). */
  protectedPrefixes?: string[];
}

/**
 * The default compactor: evicts least-recently-used entries down to `targetBytes` (half the cap
 * unless set), skipping protected prefixes and never the entry being written. It runs inside the
 * backend's atomic write, so a write that still does not fit leaves everything as it was.
 */
export class DropOldestCompactor {
  readonly protectedPrefixes: readonly string[];

  constructor(private readonly options: DropOldestOptions = {}) {
    this.protectedPrefixes = [...(options.protectedPrefixes ?? [])];
  }

  /** The target set in the options, if any (validated against the cap at bootstrap). */
  get targetBytes(): number | undefined {
    return this.options.targetBytes;
  }

  /** How to evict under these caps. */
  policyFor(limits: WorkingMemoryLimits): EvictionPolicy {
    return {
      targetBytes: this.options.targetBytes ?? Math.floor(limits.capBytes / 2),
      protectedPrefixes: this.protectedPrefixes,
    };
  }
}
