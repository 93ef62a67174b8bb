import { Logger } from '@nestjs/common';
import type { OpenedBullQueue } from '../connections/redis/open-bull-queue.js';
import type {
  ScheduledSweep,
  SweepScheduler,
  SweepTask,
} from './interfaces/sweep-scheduler.interface.js';

/** Opens the Bull queue of one task (`sweep-<name>`). */
export type SweepQueueOpener = (queueName: string) => Promise<OpenedBullQueue>;

/**
 * Sweeps as Bull repeatable jobs: one queue per task (so an instance only ever takes the sweeps it
 * knows), one repeatable job per queue. Every instance registers the same job; Bull keeps one, and
 * each tick's job id is derived from the tick, so a tick runs once across all instances. A task
 * registered with another period (an older deployment) is replaced. A worker that dies mid-pass
 * leaves a stalled job that another worker runs again: passes are idempotent. Stopping closes this
 * instance's worker only; the repeatable job stays for the others.
 */
export class BullSweepScheduler implements SweepScheduler {
  private readonly logger = new Logger('SweepScheduler');

  constructor(private readonly openQueue: SweepQueueOpener) {}

  async schedule(task: SweepTask): Promise<ScheduledSweep> {
    const opened = await this.openQueue(`sweep-${task.name}`);
    const { queue } = opened;
    queue.on('failed', (_job, error) =>
      this.logger.warn(`Sweep ${task.name} failed: ${String(error)}`),
    );
    for (const job of await queue.getRepeatableJobs()) {
      if (job.every !== task.everyMs) await queue.removeRepeatableByKey(job.key);
    }
    await queue.add(
      { task: task.name },
      { repeat: { every: task.everyMs }, removeOnComplete: true, removeOnFail: true, attempts: 1 },
    );
    queue
      .process(1, () => task.run())
      .catch((error: unknown) =>
        this.logger.error(`Sweep ${task.name} stopped processing: ${String(error)}`),
      );
    // The repeatable job stays for the other instances; only this worker and its clients go.
    return { stop: opened.close };
  }
}
