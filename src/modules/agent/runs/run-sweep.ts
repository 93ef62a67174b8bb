import type {
  ScheduledSweep,
  SweepScheduler,
} from '../../sweeper/interfaces/sweep-scheduler.interface.js';
import { scheduleSweep } from '../../sweeper/schedule-sweep.js';
import { sweepInBatches } from '../../sweeper/sweep-in-batches.js';
import type { AgentRunsOptions } from '../agent.options.js';
import type { RunStore } from './run-store.interface.js';

/** Default period of the `agent-runs` sweep: 10 minutes. */
export const DEFAULT_RUN_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
/** Default batch of the `agent-runs` sweep (batches repeat until none is left). */
export const DEFAULT_RUN_SWEEP_BATCH = 1_000;

/**
 * Schedules the sweep of a run store's expired entries (task `agent-runs`) on the app's scheduler,
 * else on an in-process timer; `undefined` when `sweep` is `false`.
 */
export function scheduleRunSweep(
  store: RunStore,
  sweep: AgentRunsOptions['sweep'],
  scheduler: SweepScheduler | undefined,
): Promise<ScheduledSweep> | undefined {
  return scheduleSweep(scheduler, sweep, {
    name: 'agent-runs',
    defaultEveryMs: DEFAULT_RUN_SWEEP_INTERVAL_MS,
    defaultBatch: DEFAULT_RUN_SWEEP_BATCH,
    run: (batch) => sweepInBatches((limit) => store.sweep(limit), batch),
  });
}
