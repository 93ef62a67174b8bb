import { describe, expect, it } from '@jest/globals';
import { InMemoryChatMemoryStore } from 'nest-agent-memory';
import { pageByRanges } from '../../src/modules/http/controllers/page-budget.js';
import { withoutPage } from '../support/store-without-page.js';

describe('the read route on a store without page()', () => {
  it('pages by version then ranges, as page() does on the built-in stores', async () => {
    const store = new InMemoryChatMemoryStore();
    await store.add(
      'c',
      Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
    );
    const custom = withoutPage(store);
    for (const [before, count] of [
      [undefined, 20],
      [11, 5],
      [3, 10],
      [1, 4],
      [99, 2],
    ] as const) {
      const expected = await store.page('c', { before, count, maxBytes: 1_000_000 });
      expect(await pageByRanges(custom, 'c', before, count, 1_000_000)).toEqual(expected);
    }
  });
});
