import type { SweepOptions } from '../sweeper/sweeper.options.js';
import type { RedisBackendOptions } from '../connections/redis/redis-backend.options.js';
import type { DropOldestCompactor } from './compactors/drop-oldest.compactor.js';
import type { SummarizeCompactor } from './compactors/summarize.compactor.js';
import type { WorkingMemoryExpireHook } from './interfaces/working-memory.interface.js';

/** Options of `WorkingMemoryModule.forRoot`; every one is validated at bootstrap. */
export type WorkingMemoryModuleOptions = ({ backend: 'memory' } | RedisBackendOptions) & {
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
   * The sweep of idle memories (default every 60 s, 100 memories a pass), on `SweeperModule`'s
   * scheduler when the app has one; `false` turns it off.
   */
  sweep?: SweepOptions;
  /** The clock (tests). */
  now?: () => number;
};
