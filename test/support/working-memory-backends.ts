import { Redis } from 'ioredis';
import type { WorkingMemoryModuleOptions } from '../../src/modules/working-memory/working-memory.options.js';
import { deleteRedisKeys } from './redis-cleanup.js';
import { OwnRedisCluster } from './redis-cluster.js';
import { TEST_REDIS_URL } from './test-databases.js';

/**
 * The working-memory backends a suite runs every case on: memory, the test Redis and a 3-master
 * Redis Cluster of the suite's own, under `prefix`; `cleanup` deletes the keys and stops the cluster.
 */
export async function workingMemoryBackends(prefix: string): Promise<{
  backends: Array<[string, WorkingMemoryModuleOptions]>;
  cleanup: () => Promise<void>;
}> {
  const cluster = await OwnRedisCluster.start();
  return {
    backends: [
      ['memory', { backend: 'memory' }],
      ['redis', { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: prefix }],
      ['redis cluster', { backend: 'redis', url: cluster.url, keyPrefix: prefix }],
    ],
    cleanup: async () => {
      const redis = new Redis(TEST_REDIS_URL);
      await deleteRedisKeys(redis, `${prefix}*`);
      await redis.quit();
      await cluster.stop();
    },
  };
}
