import { afterAll, describe, expect, it } from '@jest/globals';
import { runChatMemoryStoreConformance } from '../../src/testing/index.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { Cluster } from 'ioredis';
import { OwnRedisCluster } from '../support/redis-cluster.js';

/** The Redis backend on a 3-master Redis Cluster of the test's own, opened by its URL. */
const cluster = await OwnRedisCluster.start();

runChatMemoryStoreConformance(
  'redis cluster',
  () => openChatMemoryModule({ backend: 'redis', url: cluster.url, keyPrefix: 'test:chat:' }),
  { describe, it, expect, afterAll },
  { durable: true, sharedAcrossInstances: true },
);

/** The first key of the cluster matching `pattern`. */
async function firstKey(pattern: string): Promise<string> {
  const keys = (await cluster.keys(pattern)).filter((key) => key.endsWith(':messages'));
  return keys[0]!;
}

// After the conformance suite's own cleanup, which needs the cluster.
afterAll(() => cluster.stop());

describe('redis cluster: where the keys went', () => {
  it('spreads conversations over every master', async () => {
    const { subject, close } = await openChatMemoryModule({ backend: 'redis', url: cluster.url });
    for (let i = 0; i < 30; i += 1)
      await subject.add(`spread-${i}`, [{ role: 'user', content: 'x' }]);
    await close();
    expect((await cluster.keysPerNode()).every((count) => count > 0)).toBe(true);
  });

  it('takes an ioredis Cluster of yours as client, and leaves it open', async () => {
    const own = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    const { subject, close } = await openChatMemoryModule({ backend: 'redis', client: own });
    await subject.add('own-client', [{ role: 'user', content: 'mine' }]);
    await close();
    expect(await own.llen(await firstKey('*own-client*'))).toBe(1);
    await own.quit();
  });
});
