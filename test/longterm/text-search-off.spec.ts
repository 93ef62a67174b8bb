import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { RECALL_FACTS, recallHarness } from '../support/recall-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { longtermUris } from '../support/test-databases.js';

const { boot } = recallHarness();
const entity = () => `text-off-${Math.random().toString(36).slice(2)}`;

/** Its message, when `promise` rejects with an `InvalidArgumentError`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(InvalidArgumentError);
  return (error as Error).message;
}

describe.each(longtermUris('text-search-off.sqlite'))('textSearch: false on %s', (name, uri) => {
  it('saves records without their words, refuses searches by words, and a store with it on finds them once saved again', async () => {
    const target = uri();
    let texts = 0;
    const off = await boot({
      uri: target,
      keyPrefix: 'test:text-off:',
      textSearch: false,
      recordText: (value) => {
        texts += 1;
        return String(value);
      },
    });
    const e = entity();
    const seq = await off.nextSeq(e);
    const rows = RECALL_FACTS.map(([key, value]) => ({ entityId: e, key, value, seq }));
    expect(await off.store.saveMany(rows)).toEqual({ applied: [true, true, true] });
    expect(texts).toBe(0);
    expect((await off.store.load(e, 'pets'))?.value).toBe(RECALL_FACTS[2][1]);
    expect((await off.store.search(e, 'p', 10)).map((record) => record.key)).toEqual([
      'paint',
      'pets',
    ]);
    expect(await refusal(off.store.searchText(e, 'Melanie'))).toMatch(/textSearch: false/);
    expect(off.recallLists).toEqual({ words: false, meaning: false });
    expect(await refusal(off.recall(e, 'Melanie'))).toMatch(/needs an embedder/);
    expect(await refusal(off.recall(e, 'Melanie', { mode: 'lexical' }))).toMatch(
      /lexical needs text search/,
    );
    // A memory:// store lives in its module: there is no second module to read it.
    if (name === 'memory') return;
    const on = await boot({ uri: target, keyPrefix: 'test:text-off:' });
    expect(await on.store.searchText(e, 'Melanie')).toEqual([]);
    await on.store.save({ entityId: e, key: 'pets', value: RECALL_FACTS[2][1], seq: seq + 1 });
    expect((await on.store.searchText(e, 'Melanie')).map((hit) => hit.record.key)).toEqual([
      'pets',
    ]);
    await on.store.deleteEntity(e);
  });
});

describe('textSearch: false with an embedder', () => {
  it('recalls by meaning alone, whatever mode it is asked for but lexical', async () => {
    const service = await boot({
      uri: 'memory://',
      textSearch: false,
      recall: { embedder: new HashingEmbeddingModel(), backfill: false },
    });
    const e = entity();
    const seq = await service.nextSeq(e);
    await service.saveMany(RECALL_FACTS.map(([key, value]) => ({ entityId: e, key, value, seq })));
    expect(service.recallLists).toEqual({ words: false, meaning: true });
    const hits = await service.recall(e, 'Melanie cats', { k: 2 });
    expect(hits).toHaveLength(2);
    expect(hits.every((hit) => hit.vector !== undefined && hit.lexical === undefined)).toBe(true);
    expect(await service.recall(e, 'Melanie cats', { k: 2, mode: 'vector' })).toEqual(hits);
    expect(await refusal(service.recall(e, 'Melanie cats', { mode: 'lexical' }))).toMatch(
      /lexical needs text search/,
    );
  });

  it('recalls from a run session by meaning, its staged rows (no vector yet) left out', async () => {
    let texts = 0;
    const service = await boot({
      uri: 'memory://',
      textSearch: false,
      // Made for the embedder only: not for indexing, nor to match staged rows.
      recordText: (value) => {
        texts += 1;
        return String(value);
      },
      recall: { embedder: new HashingEmbeddingModel(), backfill: false },
    });
    const e = entity();
    const seq = await service.nextSeq(e);
    await service.saveMany(RECALL_FACTS.map(([key, value]) => ({ entityId: e, key, value, seq })));
    const session = service.session(e, { seq: await service.nextSeq(e), updatedAt: Date.now() });
    session.save('staged', 'Melanie adopted a third cat');
    texts = 0;
    const recalled = await session.recall('Melanie cats', { k: 2 });
    const direct = await service.recall(e, 'Melanie cats', { k: 2 });
    expect(recalled.map((record) => record.key)).toEqual(direct.map((hit) => hit.record.key));
    expect(texts).toBe(0);
  });

  it('finds nothing when the query cannot be embedded (no list by words to answer), and fails asked by meaning alone', async () => {
    const embedder = new HashingEmbeddingModel();
    const service = await boot({
      uri: 'memory://',
      textSearch: false,
      recall: { embedder, backfill: false },
    });
    const e = entity();
    const seq = await service.nextSeq(e);
    await service.saveMany(RECALL_FACTS.map(([key, value]) => ({ entityId: e, key, value, seq })));
    const failing = jest.spyOn(embedder, 'embed').mockRejectedValue(new Error('provider down'));
    try {
      expect(await service.recall(e, 'Melanie cats')).toEqual([]);
      expect(await service.recallFormed(e, 'Melanie cats')).toEqual([]);
      // Asked for by meaning alone, the failure is the caller's.
      const error = await rejectionOf(service.recall(e, 'Melanie cats', { mode: 'vector' }));
      expect((error as Error).message).toMatch(/provider down/);
    } finally {
      failing.mockRestore();
    }
  });

  it('is false or an object: true is refused, naming what is accepted', async () => {
    const error = await rejectionOf(boot({ uri: 'memory://', textSearch: true as never }));
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect((error as InvalidModuleOptionsError).option).toBe('textSearch');
    expect((error as Error).message).toMatch(/must be an object .* or false/);
  });
});

describe('AgentModule over a tier with textSearch: false', () => {
  let harness: AgentHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  const tier = (embedder?: HashingEmbeddingModel) => [
    ChatMemoryModule.forRoot({ backend: 'memory' }),
    LongtermMemoryModule.forRoot({
      uri: 'memory://',
      sweep: false,
      textSearch: false,
      ...(embedder ? { recall: { embedder, backfill: false } } : {}),
    }),
  ];

  it('refuses a lexical recall at bootstrap, even with an embedder', async () => {
    const error = await rejectionOf(
      bootAgent(
        { llm: new ScriptedLlm(), recall: { mode: 'lexical' } },
        tier(new HashingEmbeddingModel()),
      ),
    );
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect((error as InvalidModuleOptionsError).option).toBe('recall.mode');
  });

  it('refuses recall or formation at bootstrap without an embedder, and starts with one', async () => {
    for (const [options, option] of [
      [{ recall: true }, 'recall'],
      [{ formation: true }, 'formation'],
    ] as const) {
      const error = await rejectionOf(
        bootAgent({ llm: new ScriptedLlm(), ...(options as object) }, tier()),
      );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(option);
      expect((error as Error).message).toMatch(/textSearch: false and no recall.embedder/);
    }
    harness = await bootAgent(
      { llm: new ScriptedLlm(), recall: true },
      tier(new HashingEmbeddingModel()),
    );
    expect(harness.agent).toBeDefined();
  });
});
