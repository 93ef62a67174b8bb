import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { RerankingModel } from '../../src/modules/longterm/recall/rerank/reranking-model.interface.js';
import { WordVectorRerankingModel } from '../../src/modules/longterm/recall/rerank/word-vector-reranking-model.js';
import type { MessageRecallHit } from '../../src/modules/longterm/recall/recall.interface.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { recallHarness } from '../support/recall-harness.js';
import { longtermUris } from '../support/test-databases.js';

const { boot } = recallHarness();
const uris = longtermUris('recall-rerank.sqlite');
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

/** A reranking model that scores a document by whether it holds `favourite`, and counts its calls. */
class FavouriteModel implements RerankingModel {
  readonly id = 'favourite';
  calls: Array<{ query: string; documents: string[] }> = [];
  failing = false;
  answer?: number[];
  constructor(public favourite: string) {}
  async rerank(query: string, documents: string[]): Promise<number[]> {
    this.calls.push({ query, documents });
    if (this.failing) throw new Error('reranker down');
    return this.answer ?? documents.map((text) => (text.includes(this.favourite) ? 7 : 2));
  }
}

/** Twenty records that all match "garden"; only the last, the weakest match, holds "tomatoes". */
const GARDEN = Array.from({ length: 20 }, (_, i) =>
  i === 19
    ? (['r19', 'In the garden we grew tomatoes, peppers, beans and other things'] as const)
    : ([`r${String(i).padStart(2, '0')}`, `garden garden garden note ${i}`] as const),
);

describe.each(uris)('recall with a rerank on %s', (_label, uri) => {
  const open = (model: RerankingModel, extra: { depth?: number; weight?: number } = {}) =>
    boot({ uri: uri(), keyPrefix: 'test:recall-rerank:', recall: { rerank: { model, ...extra } } });

  const save = async (service: Awaited<ReturnType<typeof open>>, entity: string) => {
    const seq = await service.nextSeq(entity);
    await service.store.saveMany(
      GARDEN.map(([key, value]) => ({ entityId: entity, key, value, seq })),
    );
  };

  it('lets the model lift a hit from below k, read depth deep, in one call; rerank: false skips it', async () => {
    const model = new FavouriteModel('tomatoes');
    const service = await open(model, { depth: 20 });
    const entity = unique('gardener');
    await save(service, entity);
    const plain = await service.recall(entity, 'garden', { k: 20, rerank: false });
    expect(plain.at(-1)!.record.key).toBe('r19');
    expect(model.calls).toHaveLength(0);
    const hits = await service.recall(entity, 'garden', { k: 3 });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]!.documents).toHaveLength(20);
    expect(model.calls[0]!.query).toBe('garden');
    expect(hits).toHaveLength(3);
    expect(hits[0]).toMatchObject({ record: { key: 'r19' }, rerank: { rank: 1, score: 7 } });
    expect(hits[0]!.lexical).toBeDefined();
    for (const hit of hits) expect(hit.score).toBeGreaterThanOrEqual(0);
    for (const hit of hits) expect(hit.score).toBeLessThanOrEqual(1);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('scores only depth hits; past them the fused order follows, so pages never overlap', async () => {
    const model = new FavouriteModel('tomatoes');
    const service = await open(model, { depth: 12 });
    const entity = unique('gardener');
    await save(service, entity);
    const first = await service.recall(entity, 'garden', { k: 3 });
    expect(model.calls[0]!.documents).toHaveLength(12);
    expect(first.map((hit) => hit.record.key)).not.toContain('r19');
    const fused = (await service.recall(entity, 'garden', { k: 20, rerank: false })).map(
      (hit) => hit.record.key,
    );
    const all = await service.recall(entity, 'garden', { k: 20 });
    const keys = all.map((hit) => hit.record.key);
    expect(new Set(keys).size).toBe(20);
    expect(keys.slice(12)).toEqual(fused.slice(12));
    expect(all.slice(12).every((hit) => hit.rerank === undefined)).toBe(true);
    for (let i = 1; i < all.length; i += 1)
      expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score);
  });

  it('answers in the fused order, logged, when the model fails or answers the wrong count', async () => {
    const model = new FavouriteModel('tomatoes');
    const service = await open(model, { depth: 20 });
    const entity = unique('gardener');
    await save(service, entity);
    const fused = (await service.recall(entity, 'garden', { k: 5, rerank: false })).map(
      (hit) => hit.record.key,
    );
    const warnings: string[] = [];
    const warn = captureWarnings(warnings);
    try {
      model.failing = true;
      const down = await service.recall(entity, 'garden', { k: 5 });
      expect(down.map((hit) => hit.record.key)).toEqual(fused);
      expect(down.every((hit) => hit.rerank === undefined)).toBe(true);
      model.failing = false;
      model.answer = [1, 2];
      const short = await service.recall(entity, 'garden', { k: 5 });
      expect(short.map((hit) => hit.record.key)).toEqual(fused);
    } finally {
      warn.restore();
    }
    expect(warnings.join('\n')).toMatch(/favourite failed: reranker down/);
    expect(warnings.join('\n')).toMatch(/answered 2 scores for 20 texts/);
  });

  it('reranks messages and records together (scope all), after an erasure nothing comes back', async () => {
    const model = new FavouriteModel('tomatoes');
    const service = await open(model);
    const entity = unique('gardener');
    await save(service, entity);
    await service.indexMessages(
      entity,
      [
        { conversationId: 'c1', position: 1, messageId: 'm1', role: 'user', text: 'garden chat' },
        {
          conversationId: 'c1',
          position: 2,
          messageId: 'm2',
          role: 'user',
          text: 'garden tomatoes!',
        },
      ],
      { seq: await service.nextSeq(entity), updatedAt: 1 },
    );
    const hits = await service.recall(entity, 'garden', { scope: 'all', k: 4 });
    expect(model.calls[0]!.documents).toHaveLength(22);
    expect(
      hits
        .slice(0, 2)
        .map((hit) => (hit.source === 'record' ? hit.record.key : hit.message.messageId))
        .sort(),
    ).toEqual(['m2', 'r19']);
    expect((hits.find((hit) => hit.source === 'message') as MessageRecallHit).rerank).toBeDefined();
    await service.deleteEntity(entity);
    expect(await service.recall(entity, 'garden', { scope: 'all' })).toEqual([]);
  });
});

describe('recall.rerank options', () => {
  it('refuses a bad model, depth or weight, and a bad per-call switch', async () => {
    const model = new FavouriteModel('x');
    for (const rerank of [
      { model: { id: 'no-method' } },
      { model: { rerank: async () => [] } },
      { model, depth: 0 },
      { model, depth: 101 },
      { model, weight: 1.5 },
      { model, weight: -0.1 },
      { model, extra: 1 },
    ])
      expect(
        await rejectionOf(boot({ uri: 'memory://', recall: { rerank: rerank as never } })),
      ).toBeInstanceOf(InvalidModuleOptionsError);
    const service = await boot({ uri: 'memory://', recall: { rerank: { model } } });
    expect(
      await rejectionOf(service.recall('u', 'garden', { rerank: 'yes' as never })),
    ).toMatchObject({ argument: 'rerank' });
  });

  it('weight 1 orders by the model alone; weight 0 keeps the fused order', async () => {
    const scores = [3, 9, 1];
    const model: RerankingModel = { id: 'fixed', rerank: async () => scores };
    const keys = async (weight: number) => {
      const service = await boot({ uri: 'memory://', recall: { rerank: { model, weight } } });
      const seq = await service.nextSeq('u');
      await service.store.saveMany(
        ['a', 'b', 'c'].map((key, i) => ({
          entityId: 'u',
          key,
          value: `kayak ${'kayak '.repeat(3 - i)}`,
          seq,
        })),
      );
      return (await service.recall('u', 'kayak')).map((hit) => hit.record.key);
    };
    expect(await keys(0)).toEqual(['a', 'b', 'c']);
    expect(await keys(1)).toEqual(['b', 'a', 'c']);
  });
});

describe('WordVectorRerankingModel with recall', () => {
  it('ranks "What is Ada\'s job?" to "Ada works at the hospital" over "Ada painted the kitchen"', async () => {
    const model = WordVectorRerankingModel.fromVectors({
      job: [1, 0.1, 0],
      works: [0.9, 0.2, 0],
      hospital: [0.6, 0.4, 0],
      kitchen: [0, 0.1, 1],
      painted: [0, 0.3, 0.9],
      ada: [0.2, 0.9, 0.2],
    });
    const service = await boot({ uri: 'memory://', recall: { rerank: { model } } });
    const seq = await service.nextSeq('u');
    await service.store.saveMany([
      { entityId: 'u', key: 'paint', value: 'Ada painted the kitchen', seq },
      { entityId: 'u', key: 'work', value: 'Ada works at the hospital', seq },
    ]);
    // Words alone: both hold "Ada" and neither "job"; the kitchen's shorter text ranks first.
    const plain = await service.recall('u', "What is Ada's job?", { rerank: false });
    expect(plain.map((hit) => hit.record.key)).toEqual(['paint', 'work']);
    const hits = await service.recall('u', "What is Ada's job?");
    expect(hits.map((hit) => hit.record.key)).toEqual(['work', 'paint']);
  });
});

function captureWarnings(into: string[]): { restore(): void } {
  const original = Logger.prototype.warn;
  Logger.prototype.warn = function (message: unknown) {
    into.push(String(message));
  };
  return { restore: () => (Logger.prototype.warn = original) };
}
