import { afterAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { RedisChatMemoryStore } from '../../src/modules/chat-memory/backends/redis.chat-memory.store.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import * as ioredis from 'ioredis';
import { createRedisClient } from '../../src/modules/connections/redis/redis-client.js';
import { freePort } from '../support/free-port.js';

/** ioredis's default `maxRetriesPerRequest` (20) at its default delays: what a single server allows. */
const BOUND_MS = 10_500;

describe('a Redis Cluster that goes down entirely, then comes back', () => {
  const registry = new ConnectionRegistry();
  let cluster: OwnRedisCluster;
  afterAll(async () => {
    await registry.onApplicationShutdown();
    await cluster?.stop();
  });

  it('fails a command within the single-server bound instead of holding it, and recovers', async () => {
    cluster = await OwnRedisCluster.start();
    const client = (await registry.acquireRedis(cluster.url)).value;
    const store = new RedisChatMemoryStore(client, 'outage:');
    await store.add('c1', [{ role: 'user', content: 'before' }]);

    await cluster.stop();
    const started = performance.now();
    const outcome = await store.add('c1', [{ role: 'user', content: 'during' }]).then(
      () => 'stored',
      (error: Error) => error.message,
    );
    const waitedMs = performance.now() - started;
    expect(outcome).toMatch(/Redis Cluster unreachable|Connection is closed|None of startup nodes/);
    expect(waitedMs).toBeLessThan(BOUND_MS + 2_000);

    await cluster.restart();
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i += 1) {
      recovered = await store.add('c2', [{ role: 'user', content: 'after' }]).then(
        () => true,
        () => false,
      );
      if (!recovered) await sleep(200);
    }
    expect(recovered).toBe(true);
    expect((await store.get('c2')).map((message) => message.content)).toEqual(['after']);
    console.info(`Redis Cluster outage: a write failed after ${Math.round(waitedMs)} ms`);
  }, 60_000);

  it('stops failing the queue once the client is closed during the outage', async () => {
    // Nothing listens on these ports; one retry makes the bound 50 ms.
    const client = createRedisClient(ioredis, `redis+cluster://127.0.0.1:${await freePort()}`, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    client.on('error', () => undefined);
    await client.connect().catch(() => undefined);
    const started = performance.now();
    await expect(client.get('k')).rejects.toThrow(/Redis Cluster unreachable|None of startup/);
    expect(performance.now() - started).toBeLessThan(1_000);
    const internals = client as unknown as { flushQueue(error: Error): void };
    let flushes = 0;
    const flush = internals.flushQueue.bind(client);
    internals.flushQueue = (error) => {
      flushes += 1;
      flush(error);
    };
    client.disconnect();
    await sleep(200);
    const afterClose = flushes;
    await sleep(300);
    expect(flushes).toBe(afterClose);
  });

  it('names the cluster and the failing node, never the password, when it cannot connect at start', async () => {
    const port = await freePort();
    const failure = await new ConnectionRegistry()
      .acquireRedis(`redis+cluster://app:s3cret@127.0.0.1:${port}`)
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(
      new RegExp(
        `Could not connect to the Redis Cluster redis\\+cluster://\\*\\*\\*@127\\.0\\.0\\.1:${port}: .* \\(127\\.0\\.0\\.1:${port}: `,
      ),
    );
    expect(failure?.message).not.toContain('s3cret');
  });
});
