import { afterAll, beforeAll } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import type {
  FormationJob,
  FormationStepRecorder,
} from '../../src/modules/formation/memory-formation.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';

/** Stands for a Redis Cluster of the block's own (3 masters), started before its tests. */
const OWN_REDIS_CLUSTER = 'own-redis-cluster';

/** Every long-term backend formed memories are tested on, by name and URI. */
export const FORMATION_BACKENDS: Array<[string, string]> = [
  ['memory', 'memory://'],
  ['SQLite', 'sqlite::memory:'],
  ['PostgreSQL', TEST_POSTGRES_URL],
  ['MariaDB', TEST_MYSQL_URL],
  ['Redis', TEST_REDIS_URL],
  ['Redis Cluster', OWN_REDIS_CLUSTER],
];

/**
 * A long-term tier on `uri` for the enclosing block (opened before its tests, closed after), and
 * the formed memories on it; for the Redis Cluster, on a cluster started for the block.
 */
export function formationTier(uri: string): () => {
  longterm: LongtermMemoryService;
  memories: FormedMemories;
} {
  let moduleRef: TestingModule | undefined;
  let cluster: OwnRedisCluster | undefined;
  let tier: { longterm: LongtermMemoryService; memories: FormedMemories } | undefined;
  beforeAll(async () => {
    if (uri === OWN_REDIS_CLUSTER) cluster = await OwnRedisCluster.start();
    moduleRef = await Test.createTestingModule({
      imports: [LongtermMemoryModule.forRoot({ uri: cluster?.url ?? uri })],
    }).compile();
    await moduleRef.init();
    const longterm = moduleRef.get(LongtermMemoryService);
    tier = { longterm, memories: new FormedMemories(longterm) };
  });
  afterAll(async () => {
    await moduleRef?.close();
    await cluster?.stop();
  });
  return () => tier!;
}

/** A step recorder like the run cache: the first answer of a job's step is the one replayed. */
export function stepRecorder(): FormationStepRecorder {
  const steps = new Map<string, string>();
  return async <T>(job: FormationJob, step: string, compute: () => Promise<T>): Promise<T> => {
    const key = `${job.jobId}\u0000${step}`;
    if (!steps.has(key)) steps.set(key, JSON.stringify(await compute()));
    return JSON.parse(steps.get(key)!) as T;
  };
}

/**
 * `memories` as a process sees them that dies at a write: a `method` call of the long-term tier
 * for which `dies(input, call)` holds (`call` counts from 1) throws "process killed"; the others
 * go through to the real tier.
 */
export function dyingAt<M extends 'save' | 'saveMany'>(
  memories: FormedMemories,
  longterm: LongtermMemoryService,
  method: M,
  dies: (input: Parameters<LongtermMemoryService[M]>[0], call: number) => boolean,
): FormedMemories {
  const real = (longterm[method] as (input: unknown) => Promise<unknown>).bind(longterm);
  let calls = 0;
  const failing = Object.create(memories) as FormedMemories;
  Object.defineProperty(failing, 'longterm', {
    value: Object.assign(Object.create(longterm) as LongtermMemoryService, {
      [method]: async (input: Parameters<LongtermMemoryService[M]>[0]) => {
        calls += 1;
        if (dies(input, calls)) throw new Error('process killed');
        return real(input);
      },
    }),
  });
  return failing;
}
