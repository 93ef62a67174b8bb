import { describe, expect, it } from '@jest/globals';
import { recallHarness } from '../support/recall-harness.js';
import { longtermUris } from '../support/test-databases.js';

const { boot } = recallHarness();
const entity = () => `resave-${Math.random().toString(36).slice(2)}`;
/** The keys of a store's hits for a query. */
const found = async (
  store: { searchText(e: string, q: string): Promise<Array<{ record: { key: string } }>> },
  e: string,
  query: string,
) => (await store.searchText(e, query)).map((hit) => hit.record.key);

describe.each(longtermUris('record-text-resave.sqlite'))(
  'record texts saved again on %s',
  (_name, uri) => {
    it('asks recordText on every save: the same value saved again is indexed by its new answer', async () => {
      let topic = 'lighthouse';
      const harness = await boot({
        uri: uri(),
        keyPrefix: 'test:resave:',
        recordText: (value) => `${String(value)} ${topic}`,
      });
      const e = entity();
      // Three saves of one text: the last one is answered from what the store remembers.
      for (let seq = 1; seq <= 3; seq += 1)
        await harness.store.save({ entityId: e, key: 'k', value: 'note', seq });
      expect(await found(harness.store, e, 'lighthouse')).toEqual(['k']);
      topic = 'harbour';
      await harness.store.save({ entityId: e, key: 'k', value: 'note', seq: 4 });
      expect(await found(harness.store, e, 'lighthouse')).toEqual([]);
      expect(await found(harness.store, e, 'harbour')).toEqual(['k']);
      await harness.store.deleteEntity(e);
    });
  },
);

// Two stores of one process with the same entity and key: memory:// stores (one per module) and
// Redis tiers by key prefix. (On a SQL database, tiers share the package's tables: one store.)
const separate = longtermUris('record-text-tiers.sqlite').filter(([name]) =>
  ['memory', 'Redis'].includes(name),
);

describe.each(separate)('two stores on %s', (_name, uri) => {
  it("keeps each store's texts its own: a store indexing JSON does not lend its words", async () => {
    const target = uri();
    const json = await boot({
      uri: target,
      keyPrefix: 'test:resave-a:',
      recordText: (value) => JSON.stringify(value),
    });
    const plain = await boot({ uri: target, keyPrefix: 'test:resave-b:' });
    const e = entity();
    const value = { name: 'Ann', city: 'Oslo' };
    for (let seq = 1; seq <= 3; seq += 1)
      await json.store.save({ entityId: e, key: 'p', value, seq });
    for (let seq = 1; seq <= 3; seq += 1)
      await plain.store.save({ entityId: e, key: 'p', value, seq });
    expect(await found(json.store, e, 'city')).toEqual(['p']);
    expect(await found(plain.store, e, 'city')).toEqual([]);
    expect(await found(plain.store, e, 'oslo')).toEqual(['p']);
    await json.store.deleteEntity(e);
    await plain.store.deleteEntity(e);
  });
});
