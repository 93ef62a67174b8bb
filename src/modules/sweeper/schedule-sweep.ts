import { IntervalSweepScheduler } from './interval.sweep-scheduler.js';
import type { ScheduledSweep, SweepScheduler } from './interfaces/sweep-scheduler.interface.js';
import type { SweepOptions } from './sweeper.options.js';

/**
 * Schedules a module's sweep task on the app's scheduler (`SWEEP_SCHEDULER`, when `SweeperModule`
 * provides one), else on an in-process timer; nothing when the module's `sweep` is `false`.
 *
 * @param run one pass, given the batch size (the module's `sweep.batchSize`, else `defaultBatch`)
 */
export function scheduleSweep(
  scheduler: SweepScheduler | undefined,
  sweep: SweepOptions | undefined,
  task: {
    name: string;
    defaultEveryMs: number;
    defaultBatch: number;
    run(batch: number): Promise<unknown>;
  },
): Promise<ScheduledSweep> | undefined {
  if (sweep === false) return undefined;
  const batch = sweep?.batchSize ?? task.defaultBatch;
  return (scheduler ?? new IntervalSweepScheduler())
    .schedule({
      name: task.name,
      everyMs: sweep?.intervalMs ?? task.defaultEveryMs,
      run: () => task.run(batch),
    })
    .then(stoppedOnce);
}

/**
 * The sweep with a `stop` that stops it once, however often it is called (a tier stops its sweep
 * before the connections close and again when it lets go of them; a scheduler of the app's own
 * need not be idempotent).
 */
function stoppedOnce(scheduled: ScheduledSweep): ScheduledSweep {
  let stopping: Promise<void> | undefined;
  return { stop: () => (stopping ??= scheduled.stop()) };
}
