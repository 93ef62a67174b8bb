import { describe, expect, it } from '@jest/globals';
import { recallHarness } from '../support/recall-harness.js';
import { longtermUris } from '../support/test-databases.js';

const { boot } = recallHarness();
const entity = () => `resave-${Math.random().toString(36).slice(2)}`;

describe.each(longtermUris('record-text-resave.sqlite'))('recordText on %s', (_name, uri) => {
  it('is asked on every save: the same value saved again is indexed by its new answer', async () => {
    let topic = 'lighthouse';
    const harness = await boot({
      uri: uri(),
      keyPrefix: 'test:resave:',
      recordText: (value) => `${String(value)} ${topic}`,
    });
    const e = entity();
    await harness.store.save({ entityId: e, key: 'k', value: 'note', seq: 1 });
    expect((await harness.store.searchText(e, 'lighthouse')).map((hit) => hit.record.key)).toEqual([
      'k',
    ]);
    topic = 'harbour';
    await harness.store.save({ entityId: e, key: 'k', value: 'note', seq: 2 });
    expect(await harness.store.searchText(e, 'lighthouse')).toEqual([]);
    expect((await harness.store.searchText(e, 'harbour')).map((hit) => hit.record.key)).toEqual([
      'k',
    ]);
    await harness.store.deleteEntity(e);
  });
});
