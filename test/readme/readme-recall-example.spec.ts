import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { recallHarness } from '../support/recall-harness.js';
import { tempDir } from '../support/test-databases.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const { boot } = recallHarness();

/**
 * The README's recall example: its records, its query, and the record it says comes first. The
 * query's "she" is in the record it ranks second, and "work" is only a stem of the first's "works":
 * without stems and question stop words, the second would come first.
 */
const example = (() => {
  const match = /recall\('ada', '([^']+)'\)` ranks "([^"]+)" above "([^"]+)"/.exec(README);
  if (!match) throw new Error('the README no longer has its recall example');
  const [, query, first, second] = match.map((text) => text?.replace(/\s+/g, ' '));
  return { query: query!, first: first!, second: second! };
})();

describe('the README recall example ranks as it says', () => {
  it.each([
    ['memory, full-text', () => ({ uri: 'memory://' })],
    ['SQLite, full-text', () => ({ uri: `sqlite:${join(tempDir(), 'readme.sqlite')}` })],
    [
      'memory, full-text without stems (the ranking a new user found wrong)',
      () => ({ uri: 'memory://', textSearch: { stemmer: 'none', queryStopWords: [] } }),
    ],
    [
      'memory, hybrid with HashingEmbeddingModel',
      () => ({
        uri: 'memory://',
        recall: { embedder: new HashingEmbeddingModel(), backfill: false },
      }),
    ],
  ] as const)('%s', async (name, options) => {
    const service = await boot(options());
    const seq = await service.nextSeq('ada');
    await service.saveMany([
      { entityId: 'ada', key: 'facts/kitchen', value: example.second, seq },
      { entityId: 'ada', key: 'facts/job', value: example.first, seq },
    ]);
    const hits = await service.recall('ada', example.query);
    const expected = name.includes('without stems') ? example.second : example.first;
    expect(hits[0]?.record.value).toBe(expected);
  });
});
