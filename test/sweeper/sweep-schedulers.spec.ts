import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBullQueue } from '../../src/modules/connections/redis/open-bull-queue.js';
import { BullSweepScheduler } from '../../src/modules/sweeper/bull.sweep-scheduler.js';
import type { ScheduledSweep } from '../../src/modules/sweeper/interfaces/sweep-scheduler.interface.js';
import { IntervalSweepScheduler } from '../../src/modules/sweeper/interval.sweep-scheduler.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { waitFor } from '../support/wait-for.js';

const stops: ScheduledSweep[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((scheduled) => scheduled.stop()));
});

describe('IntervalSweepScheduler', () => {
  it('runs passes on its timer, never two at once, and keeps going after a failing pass', async () => {
    let running = 0;
    let maxRunning = 0;
    let passes = 0;
    const scheduled = await new IntervalSweepScheduler().schedule({
      name: 'slow',
      everyMs: 10,
      run: async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        passes += 1;
        await sleep(35); // longer than the period: ticks meanwhile are skipped
        running -= 1;
        if (passes === 1) throw new Error('first pass fails');
      },
    });
    stops.push(scheduled);
    await waitFor(
      async () => passes,
      (n) => n >= 3,
      5_000,
      'three passes',
    );
    expect(maxRunning).toBe(1);
  });

  it('stop waits for the running pass and takes no new tick', async () => {
    let passes = 0;
    let finished = 0;
    const scheduled = await new IntervalSweepScheduler().schedule({
      name: 'stoppable',
      everyMs: 10,
      run: async () => {
        passes += 1;
        await sleep(50);
        finished += 1;
      },
    });
    await waitFor(
      async () => passes,
      (n) => n === 1,
      5_000,
      'a pass to start',
    );
    await scheduled.stop();
    expect(finished).toBe(1);
    await sleep(60);
    expect(passes).toBe(1);
  });
});

describe('BullSweepScheduler (real Redis)', () => {
  const prefix = `sweep-test-${process.pid}-${Date.now()}`;
  const admin = new Redis(TEST_REDIS_URL, { lazyConnect: true }); // no socket unless a test runs
  const shared: Redis[] = [];

  /**
   * One app instance's scheduler: its own shared client, as the connection registry would give.
   * `onJob` hears the id of each job this instance's worker takes (Bull's repeat job ids end in the
   * tick's time), so a test can tell a tick run twice from a late tick.
   */
  function instance(onJob?: (jobId: string) => void): BullSweepScheduler {
    const client = new Redis(TEST_REDIS_URL);
    shared.push(client);
    return new BullSweepScheduler(async (queueName) => {
      const opened = await openBullQueue(
        queueName,
        { redisUrl: TEST_REDIS_URL, prefix },
        client,
        'the test',
      );
      opened.queue.on('active', (job) => onJob?.(String(job.id)));
      return opened;
    });
  }

  const repeatables = () => admin.zrange(`${prefix}:sweep-ticks:repeat`, 0, -1);

  afterAll(async () => {
    await deleteRedisKeys(admin, `${prefix}:*`);
    await Promise.all(shared.map((client) => client.quit()));
    await admin.quit();
  });

  it('runs each tick once across two instances, and keeps the job for others when one stops', async () => {
    const everyMs = 250;
    // Bull emits `active` right after it calls the handler: one entry per pass, with its tick's job.
    // (A tick read from the clock would not do: a pass that starts late lands in the next tick's
    // window, beside that tick's own pass.)
    const runs: Array<{ by: string; job: string }> = [];
    let passes = 0;
    const task = { name: 'ticks', everyMs, run: async () => void (passes += 1) };
    const a = await instance((job) => runs.push({ by: 'a', job })).schedule(task);
    const b = await instance((job) => runs.push({ by: 'b', job })).schedule(task);
    stops.push(a, b);
    expect(await repeatables()).toHaveLength(1); // both registered the same job: Bull keeps one
    await waitFor(
      async () => runs.length,
      (n) => n >= 6,
      10_000,
      'six ticks',
    );
    expect(passes).toBe(runs.length);
    const jobs = runs.map((run) => run.job);
    expect(jobs.every((job) => /^repeat:\w+:\d+$/.test(job))).toBe(true);
    expect(new Set(jobs).size).toBe(jobs.length); // no tick ran twice
    await a.stop();
    const before = runs.length;
    await waitFor(
      async () => runs.length,
      (n) => n >= before + 2,
      10_000,
      'ticks after a stopped',
    );
    expect(runs.slice(before).every((run) => run.by === 'b')).toBe(true);
    await b.stop();
    expect(await repeatables()).toHaveLength(1); // still there for the next instance that starts
    const after = runs.length;
    await sleep(everyMs * 2 + 100);
    expect(runs.length).toBe(after);
  });

  it('replaces a job registered with another period', async () => {
    const first = await instance().schedule({ name: 'ticks', everyMs: 300, run: async () => {} });
    await first.stop();
    const second = await instance().schedule({ name: 'ticks', everyMs: 700, run: async () => {} });
    stops.push(second);
    const keys = await repeatables();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/:700$/);
  });

  it('runs the next tick after a failing pass', async () => {
    let passes = 0;
    const scheduled = await instance().schedule({
      name: 'failing',
      everyMs: 100,
      run: async () => {
        passes += 1;
        if (passes === 1) throw new Error('first pass fails');
      },
    });
    stops.push(scheduled);
    await waitFor(
      async () => passes,
      (n) => n >= 3,
      10_000,
      'passes after a failure',
    );
  });
});
