import { afterAll, describe, expect, it } from '@jest/globals';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { runLongtermStoreConformance } from '../../src/testing/index.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';

/** The Redis long-term store on a 3-master Redis Cluster of the test's own, opened by its URL. */
const cluster = await OwnRedisCluster.start();

runLongtermStoreConformance(
  'redis cluster',
  async (clock) => {
    // Each instance is its own registry, so its own Cluster client, as another process would have.
    const registry = new ConnectionRegistry();
    const lease = await registry.acquireRedis(cluster.url);
    return {
      subject: new RedisLongtermStore(lease.value, 'test:longterm:', { now: clock.now }),
      close: () => registry.onApplicationShutdown(),
    };
  },
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);

// After the conformance suite's own cleanup, which needs the cluster.
afterAll(() => cluster.stop());

describe('redis cluster: a batch over many entities', () => {
  it('writes entities on every master, and the sweeper finds and clears each expiring one', async () => {
    const registry = new ConnectionRegistry();
    let now = 1_000_000;
    const store = new RedisLongtermStore(
      (await registry.acquireRedis(cluster.url)).value,
      'spread:',
      {
        now: () => now,
      },
    );
    const entities = Array.from({ length: 30 }, (_, i) => `entity-${i}`);
    const { applied } = await store.saveMany(
      entities.flatMap((entityId) => [
        { entityId, key: 'kept', value: 1, seq: 1 },
        { entityId, key: 'brief', value: 2, seq: 1, ttlMs: 1_000 },
      ]),
    );
    expect(applied.every(Boolean)).toBe(true);
    expect((await cluster.keysPerNode()).every((count) => count > 0)).toBe(true);
    now += 5_000;
    expect(await store.sweepExpired(1_000)).toBe(30);
    for (const entityId of entities)
      expect((await store.search(entityId, '', 10)).map((record) => record.key)).toEqual(['kept']);
    expect(await cluster.keys('spread:entities')).toEqual([]);
    await registry.onApplicationShutdown();
  });
});
