import { afterAll, describe, expect, it } from '@jest/globals';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { longtermRedisKeys } from '../../src/modules/longterm/backends/redis-keys.js';
import { NEVER_EXPIRES } from '../../src/modules/longterm/backends/sql-row-format.js';
import { packRows } from '../../src/modules/longterm/backends/redis-write-batch.js';
import {
  DEFAULT_MAX_LONGTERM_VALUE_BYTES,
  prepareBatch,
} from '../../src/modules/longterm/validation/longterm-arguments.js';
import { TextAnalyzer } from '../../src/modules/longterm/recall/text-analyzer.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

/** A store under a prefix of its own, the Redis client, and the keys of entity `e`. */
async function open() {
  const client = (await registry.acquireRedis(TEST_REDIS_URL)).value;
  const prefix = `test:text-index:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
  return {
    client,
    // The stemmer off, so that the indexed words are the record's words.
    store: new RedisLongtermStore(client, prefix, {
      analyzer: new TextAnalyzer({ stemmer: 'none' }),
    }),
    keys: longtermRedisKeys(prefix, 'e'),
  };
}

/** The entity's whole text index: docs, totals and each word's postings. */
async function indexOf(
  client: Awaited<ReturnType<typeof open>>['client'],
  keys: ReturnType<typeof longtermRedisKeys>,
  words: string[],
) {
  const postings: Record<string, Record<string, string>> = {};
  for (const word of words) {
    const posting = await client.hgetall(`${keys.wordBase}${word}`);
    if (Object.keys(posting).length > 0) postings[word] = posting;
  }
  return {
    docs: await client.hgetall(keys.docs),
    totals: await client.hgetall(keys.totals),
    postings,
  };
}

describe('Redis long-term store: the text index', () => {
  it('keeps each word’s count and the text’s length, and changes only what a save changes', async () => {
    const { client, store, keys } = await open();
    await store.saveMany([
      { entityId: 'e', key: 'a', value: 'kayak kayak river', seq: 1 },
      { entityId: 'e', key: 'b', value: 'river delta', seq: 1 },
    ]);
    const words = ['kayak', 'river', 'delta', 'lake'];
    expect(await indexOf(client, keys, words)).toEqual({
      docs: { a: '3 kayak kayak river', b: '2 river delta' },
      totals: { n: '2', words: '5' },
      postings: {
        kayak: { a: '2:3' },
        river: { a: '1:3', b: '1:2' },
        delta: { b: '1:2' },
      },
    });
    // Saved again as it was, and changed: the index is as if each were saved once.
    await store.saveMany([
      { entityId: 'e', key: 'a', value: 'kayak kayak river', seq: 2 },
      { entityId: 'e', key: 'b', value: 'lake river river', seq: 2 },
    ]);
    expect(await indexOf(client, keys, words)).toEqual({
      docs: { a: '3 kayak kayak river', b: '3 lake river river' },
      totals: { n: '2', words: '6' },
      postings: {
        kayak: { a: '2:3' },
        river: { a: '1:3', b: '2:3' },
        lake: { b: '1:3' },
      },
    });
    await store.delete('e', 'a', 3);
    await store.delete('e', 'b', 3);
    expect(await indexOf(client, keys, words)).toEqual({
      docs: {},
      totals: { n: '0', words: '0' },
      postings: {},
    });
  });

  it('reads an entry written before repeats were kept (its distinct words) and replaces it', async () => {
    const { client, store, keys } = await open();
    // What the store wrote for "kayak kayak river" until 2026-12-05: the distinct words.
    await client
      .multi()
      .hset(keys.records, 'a', `1:1:${NEVER_EXPIRES}:"kayak kayak river"`)
      .zadd(keys.live, 0, 'a')
      .hset(keys.docs, 'a', '3 kayak river')
      .hset(keys.totals, 'n', 1, 'words', 3)
      .hset(`${keys.wordBase}kayak`, 'a', '2:3')
      .hset(`${keys.wordBase}river`, 'a', '1:3')
      .exec();
    expect((await store.searchText('e', 'kayak')).map((hit) => hit.record.key)).toEqual(['a']);
    await store.save({ entityId: 'e', key: 'a', value: 'kayak kayak river', seq: 2 });
    expect(await indexOf(client, keys, ['kayak', 'river'])).toEqual({
      docs: { a: '3 kayak kayak river' },
      totals: { n: '1', words: '3' },
      postings: { kayak: { a: '2:3' }, river: { a: '1:3' } },
    });
    await client.hset(keys.docs, 'a', '3 kayak river');
    await store.save({ entityId: 'e', key: 'a', value: 'delta', seq: 3 });
    expect(await indexOf(client, keys, ['kayak', 'river', 'delta'])).toEqual({
      docs: { a: '1 delta' },
      totals: { n: '1', words: '1' },
      postings: { delta: { a: '1:1' } },
    });
    await store.deleteEntity('e');
  });

  it('applies a batch sent in several parts row by row, in order, with its index', async () => {
    const { client, store, keys } = await open();
    const note = (i: number, word: string) => `${word} ${'filler '.repeat(20)}${i}`;
    const rows = (seq: number, word: string) =>
      Array.from({ length: 600 }, (_, i) => ({
        entityId: 'e',
        key: `k${String(i).padStart(3, '0')}`,
        value: note(i, word),
        seq,
      }));
    // The batch is large enough to go in several parts (the point of this test).
    const rules = { defaultTtlMs: undefined, maxValueBytes: DEFAULT_MAX_LONGTERM_VALUE_BYTES };
    expect(packRows(prepareBatch(rows(1, 'kayak'), 1, rules)).length).toBeGreaterThan(3);
    expect((await store.saveMany(rows(5, 'kayak'))).applied.every(Boolean)).toBe(true);
    // Rows of every part refused by the seq guard (odd keys hold seq 5), the others applied.
    const next = rows(4, 'river').map((r, i) => (i % 2 === 0 ? { ...r, seq: 6 } : r));
    const { applied } = await store.saveMany(next);
    expect(applied).toEqual(next.map((_, i) => i % 2 === 0));
    const kayak = await client.hgetall(`${keys.wordBase}kayak`);
    const river = await client.hgetall(`${keys.wordBase}river`);
    expect(Object.keys(kayak).sort()).toEqual(next.filter((_, i) => i % 2 === 1).map((r) => r.key));
    expect(Object.keys(river).sort()).toEqual(next.filter((_, i) => i % 2 === 0).map((r) => r.key));
    expect(await client.hget(keys.docs, 'k599')).toBe(`22 kayak ${'filler '.repeat(20)}599`);
    expect(await client.hgetall(keys.totals)).toEqual({ n: '600', words: String(600 * 22) });
    expect((await store.load('e', 'k598'))?.value).toBe(note(598, 'river'));
    await store.deleteEntity('e');
  });
});
