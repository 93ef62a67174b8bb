import { SWEEP_DRIVER } from './sweeper.constants.js';
import type { Lease } from '../../common/lease.js';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type {
  ScheduledSweep,
  SweepScheduler,
  SweepTask,
} from './interfaces/sweep-scheduler.interface.js';

/** The driver `SweeperModule` opened, with its teardown (run once every task has stopped). */
export type OpenedSweepDriver = Lease<SweepScheduler>;

/**
 * The app's shared sweep scheduler (`SWEEP_SCHEDULER`): schedules on the configured driver, and on
 * shutdown stops every task scheduled through it (waiting for running passes) before the driver's
 * connection goes.
 */
@Injectable()
export class SweepSchedulerService
  implements SweepScheduler, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly scheduled = new Set<ScheduledSweep>();

  constructor(@Inject(SWEEP_DRIVER) private readonly driver: OpenedSweepDriver) {}

  async schedule(task: SweepTask): Promise<ScheduledSweep> {
    const inner = await this.driver.value.schedule(task);
    let stopping: Promise<void> | undefined;
    const scheduled: ScheduledSweep = {
      stop: () =>
        (stopping ??= (async () => {
          this.scheduled.delete(scheduled);
          await inner.stop();
        })()),
    };
    this.scheduled.add(scheduled);
    return scheduled;
  }

  /** Stops every sweep before any connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.scheduled].map((scheduled) => scheduled.stop()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    await this.driver.release();
  }
}
