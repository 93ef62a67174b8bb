/**
 * Options of `SweeperModule.forRoot`: where the package's sweeps (long-term expiry, idle working
 * memory, old runs) run. Without the module each service sweeps on its own in-process timer.
 */
export type SweeperModuleOptions =
  | {
      /** In-process timers: every instance sweeps on its own (idempotent, merely redundant). */
      driver: 'interval';
    }
  | {
      /** Bull repeatable jobs on Redis: one pass per tick across all instances. */
      driver: 'bull';
      /** Redis of the sweep queues (shared through the connection registry). */
      redisUrl: string;
      /** Bull key prefix (default `bull`; `QUEUE_PREFIX`). */
      prefix?: string;
    };

/** A module's `sweep` setting: its period and batch (each with a module default), or `false` for none. */
export type SweepOptions = { intervalMs?: number; batchSize?: number } | false;
