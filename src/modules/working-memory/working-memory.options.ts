import type { SweepOptions } from '../sweeper/sweeper.options.js';
import type { RedisBackendOptions } from '../connections/redis/redis-backend.options.js';
import type { DropOldestCompactor } from './compactors/drop-oldest.compactor.js';
import type { SummarizeCompactor } from './compactors/summarize.compactor.js';
import type { WorkingMemoryExpireHook } from './interfaces/working-memory.interface.js';
import type { InMemoryCapacity } from './backends/in-memory.working-memory.backend.js';

/**
 * A quota per tenant, across its conversations, on every backend. A conversation's tenant is
 * `ownerOf(conversationId)`: by default the text before its first `/` (how `AgentMemoryHttpModule`
 * stores a tenant's ids), `''` for ids without one.
 */
export interface WorkingMemoryQuota {
  /** Most bytes of keys and values one tenant's memories hold together. */
  maxBytes?: number;
  /** Most memories (conversations with working memory) one tenant holds. */
  maxConversations?: number;
  /** The tenant a conversation belongs to (default: the text before the id's first `/`). */
  ownerOf?: (conversationId: string) => string;
}

/** Options of `WorkingMemoryModule.forRoot`; every one is validated at bootstrap. */
export type WorkingMemoryModuleOptions = (
  | {
      backend: 'memory';
      /**
       * What the whole process may hold (default 64 MiB in 10,000 memories): a write past it first
       * reclaims memories idle for `reclaimAfterIdleMs` (through `onExpire`), least recently used
       * first, else fails with `WorkingMemoryFullError`.
       */
      capacity?: Partial<InMemoryCapacity>;
    }
  | RedisBackendOptions
) & {
  /**
   * Most bytes of one value's JSON (default 256 KiB; `append` counts the item); a larger write fails
   * with `ValueTooLargeError` before anything is written.
   */
  maxValueBytes?: number;
  /** A quota per tenant (default none). */
  quota?: WorkingMemoryQuota;
  /** How long a memory must be idle before a full process may reclaim it (default 60 s). */
  reclaimAfterIdleMs?: number;
  /** Hard cap per conversation, in bytes of keys and values (default 1 MiB). */
  capBytes?: number;
  /** Soft cap as a share of the hard cap, in (0, 1] (default 0.75). */
  softCapRatio?: number;
  /** `DropOldestCompactor` (default), `SummarizeCompactor`, or `false` for none. */
  compactor?: DropOldestCompactor | SummarizeCompactor | false;
  /** Idle time after which a memory is reclaimed (default 1 h). */
  ttlMs?: number;
  /** Runs before an idle memory is deleted (e.g. save it to long-term); if it throws, nothing is deleted. */
  onExpire?: WorkingMemoryExpireHook;
  /**
   * The sweep of idle memories (default every 60 s; a pass reclaims batches of 100 until none is
   * left), on `SweeperModule`'s
   * scheduler when the app has one; `false` turns it off.
   */
  sweep?: SweepOptions;
  /** The clock (tests). */
  now?: () => number;
};
