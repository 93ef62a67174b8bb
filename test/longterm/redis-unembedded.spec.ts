import { afterAll, describe, expect, it } from '@jest/globals';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

describe('Redis long-term store: the background embedding walk', () => {
  it('pages an entity of many records in bounded pages, under a key prefix with glob characters', async () => {
    const client = (await registry.acquireRedis(TEST_REDIS_URL)).value;
    // Glob characters in the prefix are matched literally by SCAN … MATCH.
    const prefix = `test:walk*[x]?${Date.now()}\\:`;
    const store = new RedisLongtermStore(client, prefix);
    const entities = ['big', 'small'];
    await store.saveMany(
      Array.from({ length: 500 }, (_, i) => ({
        entityId: 'big',
        key: `k${i}`,
        value: `v${i}`,
        seq: 1,
      })),
    );
    await store.save({ entityId: 'small', key: 'only', value: 'one', seq: 1 });
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.unembedded('walk-model', 50, cursor);
      expect(page.records.length).toBeLessThanOrEqual(50);
      for (const record of page.records) seen.add(`${record.entityId}|${record.key}`);
      cursor = page.cursor;
      pages += 1;
    } while (cursor !== undefined && pages < 100);
    expect(cursor).toBeUndefined();
    expect(seen.size).toBe(501);
    expect(pages).toBeGreaterThanOrEqual(7);
    for (const entity of entities) await store.deleteEntity(entity);
  });
});
