import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import Database from 'better-sqlite3';
import * as ioredis from 'ioredis';
import { join } from 'node:path';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import { AgentService } from '../../src/modules/agent/agent.service.js';
import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import { LONGTERM_MEMORY_STORE } from '../../src/modules/longterm/longterm.constants.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import type {
  ScheduledSweep,
  SweepScheduler,
  SweepTask,
} from '../../src/modules/sweeper/interfaces/sweep-scheduler.interface.js';
import { SWEEP_SCHEDULER } from '../../src/modules/sweeper/sweeper.constants.js';
import { SweeperModule } from '../../src/modules/sweeper/sweeper.module.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import { WorkingMemoryService } from '../../src/modules/working-memory/working-memory.service.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { TEST_REDIS_URL, tempDir } from '../support/test-databases.js';
import { longtermRedisKeys } from '../../src/modules/longterm/backends/redis-keys.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { waitFor } from '../support/wait-for.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import { createRedisClient } from '../../src/modules/connections/redis/redis-client.js';
import { bullClusterPrefix } from '../../src/modules/connections/redis/open-bull-queue.js';

const prefix = `sweeper-module-${process.pid}-${Date.now()}`;
const admin = new ioredis.Redis(TEST_REDIS_URL, { lazyConnect: true }); // no socket unless a test runs
/** A 3-master Redis Cluster of the test's own, for the same sweeps with every tier on it. */
const cluster = await OwnRedisCluster.start();
const clusterAdmin = createRedisClient(ioredis, cluster.url, { lazyConnect: true });
const opened: TestingModule[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((moduleRef) => moduleRef.close()));
});
afterAll(async () => {
  await deleteRedisKeys(admin, `${prefix}*`);
  await admin.quit();
  clusterAdmin.disconnect();
  await cluster.stop();
});

async function boot(imports: DynamicModule[]): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef;
}

/** The three tiers with a sweep, on Redis / SQLite, every clock in the test's hand. */
function tiers(clock: { now: number }, runsPath: string, redisUrl: string): DynamicModule[] {
  return [
    LongtermMemoryModule.forRoot({
      uri: redisUrl,
      keyPrefix: `${prefix}:lt:`,
      sweep: { intervalMs: 200 },
      now: () => clock.now,
    }),
    WorkingMemoryModule.forRoot({
      backend: 'redis',
      url: redisUrl,
      keyPrefix: `${prefix}:wm:`,
      ttlMs: 1_000,
      sweep: { intervalMs: 200 },
      now: () => clock.now,
    }),
    AgentModule.forRoot({
      llm: { provider: 'echo' },
      memory: false,
      runs: { backend: 'sqlite', path: runsPath, retentionMs: 1, sweep: { intervalMs: 200 } },
    }),
  ];
}

describe.each([
  ['in-process timers (no SweeperModule)', TEST_REDIS_URL, false],
  ['Bull repeatable jobs (SweeperModule)', TEST_REDIS_URL, true],
  ['Bull repeatable jobs on a Redis Cluster, every tier on it', cluster.url, true],
] as const)('sweeps on %s', (_label, redisUrl, onBull) => {
  const sweeper = onBull ? [SweeperModule.forRoot({ driver: 'bull', redisUrl, prefix })] : [];
  const redis = redisUrl === TEST_REDIS_URL ? admin : clusterAdmin;
  it('removes expired long-term rows, idle working memory and expired run entries', async () => {
    const clock = { now: 1_000_000 };
    const runsPath = join(tempDir(), 'runs.sqlite');
    const moduleRef = await boot([...sweeper, ...tiers(clock, runsPath, redisUrl)]);
    const entity = `e-${Math.random().toString(36).slice(2)}`;
    await moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE).saveMany(
      Array.from({ length: 5 }, (_, i) => ({
        entityId: entity,
        key: `k${i}`,
        value: i,
        seq: 1,
        ttlMs: 10,
      })),
    );
    const memory = moduleRef.get(WorkingMemoryService).for(`c-${entity}`);
    await memory.set('note', 'kept until idle');
    await moduleRef.get(AgentService).run({ conversationId: `c-${entity}`, message: 'hello' });
    const runRows = () => {
      const db = new Database(runsPath, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM agent_run_entries').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const records = () => redis.hlen(longtermRedisKeys(`${prefix}:lt:`, entity).records);
    expect(await records()).toBe(5);
    expect(await memory.keys()).toEqual(['note']);

    clock.now += 10_000; // past the long-term TTL and the working-memory idle TTL
    await waitFor(records, (n) => n === 0, 10_000, 'the long-term sweep');
    await waitFor(
      () => memory.keys(),
      (keys) => keys.length === 0,
      10_000,
      'the idle sweep',
    );
    await waitFor(
      async () => runRows(),
      (n) => n === 0,
      10_000,
      'the run sweep',
    );
    if (onBull) {
      // On a cluster, Bull's keys sit under the prefix given a hash tag: `{prefix}:…`.
      const queuePrefix = redis === admin ? prefix : bullClusterPrefix(prefix);
      for (const task of ['longterm-expiry', 'working-memory-idle', 'agent-runs'])
        expect(await redis.zcard(`${queuePrefix}:sweep-${task}:repeat`)).toBe(1);
    }
  }, 30_000);
});

describe('SweeperModule wiring', () => {
  it('schedules every tier on the app scheduler and stops each on shutdown', async () => {
    const tasks: SweepTask[] = [];
    const stopped: string[] = [];
    const recording: SweepScheduler = {
      schedule: async (task): Promise<ScheduledSweep> => {
        tasks.push(task);
        return { stop: async () => void stopped.push(task.name) };
      },
    };
    @Global()
    @Module({
      providers: [{ provide: SWEEP_SCHEDULER, useValue: recording }],
      exports: [SWEEP_SCHEDULER],
    })
    class RecordingSweeperModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        RecordingSweeperModule,
        LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: { intervalMs: 1_234 } }),
        WorkingMemoryModule.forRoot({ backend: 'memory' }),
        AgentModule.forRoot({ llm: { provider: 'echo' }, memory: false }),
      ],
    }).compile();
    await moduleRef.init();
    expect(tasks.map((task) => [task.name, task.everyMs]).sort()).toEqual([
      ['agent-runs', 600_000],
      ['longterm-expiry', 1_234],
      ['working-memory-idle', 60_000],
    ]);
    await moduleRef.close();
    expect(stopped.sort()).toEqual(['agent-runs', 'longterm-expiry', 'working-memory-idle']);
  });

  it('schedules nothing for a tier whose sweep is off', async () => {
    const tasks: string[] = [];
    @Global()
    @Module({
      providers: [
        {
          provide: SWEEP_SCHEDULER,
          useValue: {
            schedule: async (task: SweepTask) => {
              tasks.push(task.name);
              return { stop: async () => undefined };
            },
          },
        },
      ],
      exports: [SWEEP_SCHEDULER],
    })
    class RecordingSweeperModule {}
    await boot([
      RecordingSweeperModule as unknown as DynamicModule,
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
      WorkingMemoryModule.forRoot({ backend: 'memory', sweep: false }),
      AgentModule.forRoot({
        llm: { provider: 'echo' },
        memory: false,
        runs: { backend: 'memory', sweep: false },
      }),
    ]);
    expect(tasks).toEqual([]);
  });

  it('refuses bad options at bootstrap, naming them', async () => {
    for (const [options, option] of [
      [{ driver: 'cron' }, 'driver'],
      [{ driver: 'bull' }, 'redisUrl'],
      [{ driver: 'bull', redisUrl: '' }, 'redisUrl'],
      [{}, 'driver'],
      [{ driver: 'interval', prefix: 'bull' }, 'prefix'],
    ] as const) {
      const error = await rejectionOf(boot([SweeperModule.forRoot(options as never)]));
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as Error).message).toContain(option);
    }
  });
});
