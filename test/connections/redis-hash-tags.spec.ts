import { WorkingMemoryCapacity } from '../../src/modules/working-memory/working-memory-capacity.js';
import { afterAll, describe, expect, it } from '@jest/globals';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { RedisChatMemoryStore } from '../../src/modules/chat-memory/backends/redis.chat-memory.store.js';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { RedisWorkingMemoryBackend } from '../../src/modules/working-memory/backends/redis.working-memory.backend.js';
import { DefaultWorkingMemoryHandle } from '../../src/modules/working-memory/working-memory.handle.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
const prefix = `test-tags-${process.pid}:`;
afterAll(async () => {
  await deleteRedisKeys(redis, `${prefix}*`);
  await redis.quit();
});

/** Every key under `keyPrefix`, and the cluster slots they hash to. */
async function slotsUnder(keyPrefix: string): Promise<{ keys: string[]; slots: Set<number> }> {
  const keys = await redis.keys(`${keyPrefix}*`);
  return { keys, slots: new Set(keys.map((key) => calculateSlot(key))) };
}

/** Ids that would move or split a hash tag built from the raw id. */
const hostile = ['}starts-with-brace', '{a}b', 'a}b{c', 'plain'];

describe('Redis keys of one conversation or entity share a cluster slot, whatever its id', () => {
  it.each(hostile)('chat memory: %s', async (id) => {
    const keyPrefix = `${prefix}chat:${hostile.indexOf(id)}:`;
    await new RedisChatMemoryStore(redis, keyPrefix).add(id, [{ role: 'user', content: 'hi' }]);
    const { keys, slots } = await slotsUnder(keyPrefix);
    expect(keys).toHaveLength(2);
    expect(slots.size).toBe(1);
  });

  it.each(hostile)('long-term memory: %s', async (id) => {
    const keyPrefix = `${prefix}lt:${hostile.indexOf(id)}:`;
    const store = new RedisLongtermStore(redis, keyPrefix);
    await store.saveMany([
      { entityId: id, key: 'a', value: 1, seq: 1, ttlMs: 60_000 },
      { entityId: id, key: 'b', value: 2, seq: 1 },
    ]);
    await store.deleteEntity(id);
    await store.save({ entityId: id, key: 'c', value: 3, seq: 9 });
    const { keys, slots } = await slotsUnder(`${keyPrefix}{`);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(slots.size).toBe(1);
  });

  it.each(hostile)('working memory: %s', async (id) => {
    const keyPrefix = `${prefix}wm:${hostile.indexOf(id)}:`;
    const backend = new RedisWorkingMemoryBackend(redis, keyPrefix);
    const memory = new DefaultWorkingMemoryHandle(id, {
      backend,
      capacity: new WorkingMemoryCapacity({
        backend,
        maxValueBytes: 1_000,
        reclaimAfterIdleMs: 60_000,
        now: Date.now,
        parse: () => {
          throw new Error('no hook here');
        },
      }),
      limits: { capBytes: 10_000, softCapBytes: 9_000 },
      now: Date.now,
    });
    await memory.set('k', 1);
    const { keys, slots } = await slotsUnder(`${keyPrefix}{`);
    expect(keys).toHaveLength(3);
    expect(slots.size).toBe(1);
  });
});
