import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LongtermMemoryService } from '../../src/index.js';
import { tempDir } from '../support/test-databases.js';

describe('guide example: RerankedRecallModule (a word-vector rerank)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    rmSync('./data/recall-rerank.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    // A small file in the package's format: "job" near "works", far from "kitchen".
    const path = join(tempDir('word-vectors-'), 'vectors.json');
    const vectors = {
      job: [1, 0.1, 0, 1, 0],
      works: [0.9, 0.2, 0, 1, 1],
      kitchen: [0, 0.1, 1, 1, 2],
    };
    writeFileSync(path, JSON.stringify({ dimensions: 3, words: Object.keys(vectors), vectors }));
    process.env.WORD_VECTORS_FILE = path;
    const { RerankedRecallModule } = await import('../../examples/recall-rerank.module.js');
    moduleRef = await Test.createTestingModule({ imports: [RerankedRecallModule] }).compile();
    await moduleRef.init();
  });
  afterAll(async () => {
    delete process.env.WORD_VECTORS_FILE;
    await moduleRef.close();
    rmSync('./data/recall-rerank.sqlite', { force: true });
  });

  it('ranks the record about work first for a question about a job', async () => {
    const longterm = moduleRef.get(LongtermMemoryService);
    const seq = await longterm.nextSeq('ada');
    await longterm.saveMany([
      { entityId: 'ada', key: 'kitchen', value: 'Ada painted the kitchen', seq },
      { entityId: 'ada', key: 'work', value: 'Ada works at the aquarium', seq },
    ]);
    const question = "What is Ada's job?";
    const byWords = await longterm.recall('ada', question, { rerank: false });
    expect(byWords.map((hit) => hit.record.key)).toEqual(['kitchen', 'work']);
    const hits = await longterm.recall('ada', question);
    expect(hits.map((hit) => hit.record.key)).toEqual(['work', 'kitchen']);
    expect(hits[0]!.rerank).toEqual({ rank: 1, score: expect.any(Number) });
  });
});
