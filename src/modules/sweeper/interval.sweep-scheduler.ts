import { Logger } from '@nestjs/common';
import type {
  ScheduledSweep,
  SweepScheduler,
  SweepTask,
} from './interfaces/sweep-scheduler.interface.js';

/**
 * Sweeps on in-process timers (unref'd, so they never keep a process alive). A tick that finds the
 * previous pass still running is skipped: passes of one task never overlap. Every instance of a
 * scaled-out app sweeps on its own timer; the passes are idempotent, merely redundant — use the
 * Bull scheduler to run one pass per tick across instances.
 */
export class IntervalSweepScheduler implements SweepScheduler {
  private readonly logger = new Logger('SweepScheduler');

  async schedule(task: SweepTask): Promise<ScheduledSweep> {
    let running: Promise<unknown> | undefined;
    const timer = setInterval(() => {
      if (running) return;
      running = task
        .run()
        .catch((error: unknown) => this.logger.warn(`Sweep ${task.name} failed: ${String(error)}`))
        .finally(() => (running = undefined));
    }, task.everyMs);
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await running;
      },
    };
  }
}
