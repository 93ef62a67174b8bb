import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

/**
 * A search walks past expired rows the sweeper has not removed yet, in pages: however many there
 * are (here more than one Lua `unpack` could take in one page), it returns the live rows behind them.
 */
describe('Redis long-term search behind many expired rows', () => {
  const client = new Redis(TEST_REDIS_URL);
  let time = 1_000_000;
  const store = new RedisLongtermStore(client, `test:paging:${randomUUID()}:`, {
    now: () => time,
  });
  const entity = 'many-expired';
  afterAll(async () => {
    await store.deleteEntity(entity);
    await client.quit();
  });

  it('finds the live rows behind 17,000 expired ones, for a limit of 1 and of 1,000', async () => {
    for (let from = 0; from < 17_000; from += 1_000)
      await store.saveMany(
        Array.from({ length: 1_000 }, (_, i) => ({
          entityId: entity,
          key: `k/${String(from + i).padStart(5, '0')}`,
          value: i,
          seq: 1,
          ttlMs: 1_000,
        })),
      );
    await store.saveMany([
      { entityId: entity, key: 'k/live-1', value: 'a', seq: 1 },
      { entityId: entity, key: 'k/live-2', value: 'b', seq: 1 },
    ]);
    time += 1_000;
    expect((await store.search(entity, 'k/', 1)).map((r) => r.key)).toEqual(['k/live-1']);
    expect((await store.search(entity, 'k/', 1_000)).map((r) => r.key)).toEqual([
      'k/live-1',
      'k/live-2',
    ]);
  });
});
