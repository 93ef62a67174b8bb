import { afterAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
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
/** The prefixes this file wrote under: their keys are deleted at the end (marks and counters too). */
const prefixes: string[] = [];
afterAll(async () => {
  const client = (await registry.acquireRedis(TEST_REDIS_URL)).value;
  for (const prefix of prefixes) {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  }
  await registry.onApplicationShutdown();
});

/** A store under a prefix of its own, the Redis client, and the keys of entity `e`. */
async function open() {
  const client = (await registry.acquireRedis(TEST_REDIS_URL)).value;
  const prefix = `test:text-index:${Date.now()}:${Math.random().toString(36).slice(2)}:`;
  prefixes.push(prefix);
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
    // Changed to a text of the same length: its counts are not in the old entry, so each word is
    // written (kayak's stored posting says 2 of 3, now 1).
    await client.hset(keys.docs, 'a', '3 kayak river');
    await store.save({ entityId: 'e', key: 'a', value: 'kayak river delta', seq: 3 });
    expect(await indexOf(client, keys, ['kayak', 'river', 'delta'])).toEqual({
      docs: { a: '3 kayak river delta' },
      totals: { n: '1', words: '3' },
      postings: { kayak: { a: '1:3' }, river: { a: '1:3' }, delta: { a: '1:3' } },
    });
    await client.hset(keys.docs, 'a', '3 kayak river');
    await store.save({ entityId: 'e', key: 'a', value: 'delta', seq: 4 });
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
    const row = (i: number, seq: number, word: string) => ({
      entityId: 'e',
      key: `k${String(i).padStart(3, '0')}`,
      value: note(i, word),
      seq,
    });
    const all = Array.from({ length: 600 }, (_, i) => i);
    // The batch is large enough to go in several parts (the point of this test).
    const rules = { defaultTtlMs: undefined, maxValueBytes: DEFAULT_MAX_LONGTERM_VALUE_BYTES };
    const batch = all.map((i) => row(i, 12, 'river'));
    expect(packRows(prepareBatch(batch, 1, rules)).length).toBeGreaterThan(3);
    // Stored state that differs from row to row: two rows in three stored, at seq 10 to 13, some
    // with a TTL; so a row checked against another row's stored state gets another verdict.
    const stored = all.filter((i) => i % 3 !== 0);
    await store.saveMany(
      stored.map((i) => ({
        ...row(i, 10 + (i % 4), 'kayak'),
        ...(i % 5 === 0 ? { ttlMs: 60_000 } : {}),
      })),
    );
    const { applied } = await store.saveMany(batch);
    const expected = all.map((i) => i % 3 === 0 || 10 + (i % 4) <= 12);
    expect(applied).toEqual(expected);
    const river = all.filter((i) => expected[i]).map((i) => row(i, 12, 'river').key);
    const kayak = all.filter((i) => !expected[i]).map((i) => row(i, 12, 'river').key);
    expect(Object.keys(await client.hgetall(`${keys.wordBase}river`)).sort()).toEqual(river);
    expect(Object.keys(await client.hgetall(`${keys.wordBase}kayak`)).sort()).toEqual(kayak);
    expect(await client.hget(keys.docs, 'k598')).toBe(`22 river ${'filler '.repeat(20)}598`);
    expect(await client.hget(keys.docs, 'k599')).toBe(`22 kayak ${'filler '.repeat(20)}599`);
    expect(await client.hgetall(keys.totals)).toEqual({ n: '600', words: String(600 * 22) });
    const records = await store.search('e', 'k', 1000);
    expect(records.map((record) => record.key)).toEqual(all.map((i) => row(i, 0, '').key));
    expect(records.map((record) => record.value)).toEqual(
      all.map((i) => note(i, expected[i] ? 'river' : 'kayak')),
    );
    // The rows that applied no longer expire; the refused ones keep their TTL.
    const expiring = (await client.zrange(keys.expiry, 0, -1)).sort();
    expect(expiring).toEqual(
      stored.filter((i) => i % 5 === 0 && !expected[i]).map((i) => row(i, 0, '').key),
    );
    await store.deleteEntity('e');
  });
  it('matches a model of the index after random batches of saves, re-saves and deletes', async () => {
    const vocabulary = ['kayak', 'river', 'delta', 'lake', 'reed'];
    const keyNames = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    // A batch: per key at most once, a text of 1–5 words (repeats likely), or a delete.
    const batch = fc.uniqueArray(
      fc.record({
        key: fc.constantFrom(...keyNames),
        words: fc.option(fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 5 })),
      }),
      { minLength: 1, maxLength: keyNames.length, selector: (row) => row.key },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 6 }), async (batches) => {
        const { client, store, keys } = await open();
        const model = new Map<string, string[]>();
        let seq = 0;
        for (const rows of batches) {
          seq += 1;
          const saves = rows.filter((row) => row.words !== null);
          if (saves.length > 0)
            await store.saveMany(
              saves.map((row) => ({
                entityId: 'e',
                key: row.key,
                value: row.words!.join(' '),
                seq,
              })),
            );
          for (const row of rows.filter((row) => row.words === null))
            await store.delete('e', row.key, seq);
          for (const row of rows)
            if (row.words === null) model.delete(row.key);
            else model.set(row.key, row.words);
          const postings: Record<string, Record<string, string>> = {};
          let words = 0;
          for (const [key, text] of model) {
            words += text.length;
            for (const word of new Set(text)) {
              const tf = text.filter((w) => w === word).length;
              (postings[word] ??= {})[key] = `${tf}:${text.length}`;
            }
          }
          const index = await indexOf(client, keys, vocabulary);
          expect(index.docs).toEqual(
            Object.fromEntries(
              [...model].map(([key, text]) => [key, `${text.length} ${text.join(' ')}`]),
            ),
          );
          expect(index.postings).toEqual(postings);
          expect([Number(index.totals.n ?? 0), Number(index.totals.words ?? 0)]).toEqual([
            model.size,
            words,
          ]);
        }
        await store.deleteEntity('e');
      }),
      { numRuns: 40 },
    );
  });
});
