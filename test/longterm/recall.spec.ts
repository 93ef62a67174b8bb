import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import type { EmbeddingModel } from '../../src/modules/longterm/recall/embedding/embedding-model.interface.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { RECALL_FACTS, recallHarness } from '../support/recall-harness.js';
import { tempDir } from '../support/test-databases.js';

const { boot, closeAll } = recallHarness();

/** An embedder that counts its calls and can be made to fail. */
class CountingEmbedder implements EmbeddingModel {
  readonly id: string;
  calls = 0;
  failing = false;
  private readonly inner: HashingEmbeddingModel;
  constructor(dimensions = 64) {
    this.inner = new HashingEmbeddingModel({ dimensions });
    this.id = `counting-${dimensions}`;
  }
  async embed(texts: string[]): Promise<number[][]> {
    this.calls += 1;
    if (this.failing) throw new Error('embedding service down');
    return this.inner.embed(texts);
  }
}

const facts = RECALL_FACTS;

describe('LongtermMemoryService.recall', () => {
  it('fuses the full-text and vector lists, each hit saying where it ranked', async () => {
    const service = await boot({
      uri: 'memory://',
      recall: { embedder: new HashingEmbeddingModel(), backfill: false },
    });
    const seq = await service.nextSeq('u');
    await service.store.saveMany(facts.map(([key, value]) => ({ entityId: 'u', key, value, seq })));
    expect(await service.embedPending()).toBe(3);
    const hits = await service.recall('u', 'who was a painter?');
    expect(hits[0]).toMatchObject({
      source: 'record',
      record: { key: 'paint' },
      vector: { rank: 1, score: expect.any(Number) },
    });
    // "painter" is neither a word nor a stem of any record ("painted" stems to "paint"): only the
    // vector list (trigrams) finds the painter.
    expect(hits[0]!.lexical).toBeUndefined();
    const both = await service.recall('u', 'Melanie cats');
    expect(both[0]).toMatchObject({
      record: { key: 'pets' },
      lexical: { rank: 1 },
      vector: { rank: 1 },
    });
    expect(both[0]!.score).toBeCloseTo(2 / 61, 10);
    const lexical = await service.recall('u', 'Melanie cats', { mode: 'lexical' });
    expect(lexical.every((hit) => hit.vector === undefined)).toBe(true);
    const vector = await service.recall('u', 'Melanie cats', { mode: 'vector', k: 2 });
    expect(vector).toHaveLength(2);
    expect(vector.every((hit) => hit.lexical === undefined)).toBe(true);
    expect(
      (await service.recall('u', 'lake', { filter: { prefix: 'pe' } })).map((h) => h.record.key),
    ).not.toContain('paint');
  });

  it('counts a vector hit only at recall.minSimilarity or more (cosine; default 0.1)', async () => {
    const records = [
      ['job', 'Ada works at the city hospital'],
      ['fruit', 'Bananas are yellow'],
      ['sky', 'Blue skies over Lisbon'],
    ] as const;
    const save = async (service: Awaited<ReturnType<typeof boot>>) => {
      const seq = await service.nextSeq('m');
      await service.store.saveMany(
        records.map(([key, value]) => ({ entityId: 'm', key, value, seq })),
      );
      await service.embedPending();
    };
    const embedder = new HashingEmbeddingModel();
    const byDefault = await boot({ uri: 'memory://', recall: { embedder, backfill: false } });
    await save(byDefault);
    // Nothing of the query is in two of the records: by meaning, only the hospital is a hit.
    const hits = await byDefault.recall('m', 'hospital work', { mode: 'vector', k: 10 });
    expect(hits.map((hit) => hit.record.key)).toEqual(['job']);
    expect(hits[0]!.vector!.score).toBeGreaterThanOrEqual(0.1);
    // A cut of 0 keeps every record not pointing away; above the best, none is a hit.
    const everything = await boot({
      uri: 'memory://',
      recall: { embedder, backfill: false, minSimilarity: -1 },
    });
    await save(everything);
    expect(await everything.recall('m', 'hospital work', { mode: 'vector', k: 10 })).toHaveLength(
      3,
    );
    const strict = await boot({
      uri: 'memory://',
      recall: { embedder, backfill: false, minSimilarity: 0.99 },
    });
    await save(strict);
    expect(await strict.recall('m', 'hospital work', { mode: 'vector', k: 10 })).toEqual([]);
  });

  it('is the full-text list alone without an embedder, and refuses a vector recall', async () => {
    const service = await boot({ uri: 'memory://' });
    await service.store.save({ entityId: 'u', key: 'job', value: 'counselor at school', seq: 1 });
    const hits = await service.recall('u', 'counselor');
    expect(hits).toEqual([
      expect.objectContaining({ lexical: { rank: 1, score: expect.any(Number) }, score: 1 / 61 }),
    ]);
    expect(hits[0]!.vector).toBeUndefined();
    const error = await rejectionOf(service.recall('u', 'counselor', { mode: 'vector' }));
    expect((error as InvalidArgumentError).argument).toBe('mode');
    for (const [options, argument] of [
      [{ k: 0 }, 'k'],
      [{ k: 101 }, 'k'],
      [{ mode: 'fuzzy' }, 'mode'],
      [{ filter: { key: 'x' } }, 'filter.key'],
      [{ filter: { prefix: 'a\uD800' } }, 'prefix'],
    ] as const) {
      const failure = await rejectionOf(service.recall('u', 'counselor', options as never));
      expect(failure).toBeInstanceOf(InvalidArgumentError);
      expect((failure as InvalidArgumentError).argument).toBe(argument);
    }
    expect(((await rejectionOf(service.recall('u', '?!'))) as InvalidArgumentError).argument).toBe(
      'query',
    );
  });

  it('answers with the full-text list when the embedder is down, and fails a vector recall', async () => {
    const embedder = new CountingEmbedder();
    const service = await boot({ uri: 'memory://', recall: { embedder, backfill: false } });
    await service.store.save({ entityId: 'u', key: 'job', value: 'counselor at school', seq: 1 });
    embedder.failing = true;
    expect((await service.recall('u', 'counselor')).map((hit) => hit.record.key)).toEqual(['job']);
    expect(await rejectionOf(service.recall('u', 'counselor', { mode: 'vector' }))).toEqual(
      expect.objectContaining({ message: 'embedding service down' }),
    );
  });

  it('embeds in the background what was saved without vectors', async () => {
    const embedder = new CountingEmbedder(32);
    const service = await boot({ uri: 'memory://', recall: { embedder, backfill: false } });
    const seq = await service.nextSeq('u');
    await service.store.saveMany(facts.map(([key, value]) => ({ entityId: 'u', key, value, seq })));
    await service.store.save({ entityId: 'u', key: 'empty', value: { n: 1 }, seq });
    expect(await service.recall('u', 'cats', { mode: 'vector' })).toEqual([]);
    expect(await service.embedPending(2)).toBe(4);
    expect(service.embeddingStatus()).toMatchObject({
      model: 'counting-32',
      running: false,
      embedded: 4,
      lastPass: { embedded: 4, complete: true },
    });
    // The record without text got an empty vector: it is not tried again, nor found by vector.
    expect(await service.embedPending()).toBe(0);
    // Every record with a vector is tried; the counselor points away from "cats" (cosine < 0.1).
    const found = await service.recall('u', 'cats', { mode: 'vector' });
    expect(found.map((hit) => hit.record.key)).toEqual(['pets', 'paint']);
  });

  it('re-embeds in the background after a restart with another model, searching only current vectors meanwhile', async () => {
    const uri = `sqlite:${join(tempDir(), 'reembed.sqlite')}`;
    const before = await boot({
      uri,
      recall: { embedder: new CountingEmbedder(32), backfill: false },
    });
    const seq = await before.nextSeq('u');
    await before.store.saveMany(facts.map(([key, value]) => ({ entityId: 'u', key, value, seq })));
    expect(await before.embedPending()).toBe(3);
    await closeAll();
    const next = new CountingEmbedder(48);
    next.failing = true; // the new model is not reachable yet: the first pass at start fails
    const after = await boot({ uri, recall: { embedder: next } });
    for (let i = 0; i < 100 && !after.embeddingStatus()!.lastPass; i += 1) await sleep(10);
    expect(after.embeddingStatus()).toMatchObject({
      model: 'counting-48',
      lastPass: { embedded: 0, complete: false },
      lastError: 'embedding service down',
    });
    // Meanwhile: full-text recall works, and the old model's vectors are never compared.
    expect((await after.recall('u', 'cats')).map((hit) => hit.record.key)).toEqual(['pets']);
    expect(
      await after.store.searchVector('u', new Array(48).fill(1), { model: 'counting-48' }),
    ).toEqual([]);
    next.failing = false;
    expect(await after.embedPending()).toBe(3);
    expect((await after.recall('u', 'cats'))[0]).toMatchObject({
      lexical: { rank: 1 },
      vector: { rank: 1 },
    });
  });

  it('gives a run its vectors at flush, once: a replay reads them from the run cache', async () => {
    const embedder = new CountingEmbedder();
    const service = await boot({ uri: 'memory://', recall: { embedder, backfill: false } });
    const cache = new Map<string, string>();
    const cachedStep = async <T>(key: string, compute: () => Promise<T>): Promise<T> => {
      if (!cache.has(key)) cache.set(key, JSON.stringify(await compute()));
      return JSON.parse(cache.get(key)!) as T;
    };
    const [query] = await new HashingEmbeddingModel({ dimensions: 64 }).embed(['puppy']);
    const run = { seq: await service.nextSeq('u'), updatedAt: 1_000 };
    const attempt = async () => {
      const session = service.session('u', run, cachedStep);
      session.save('fact', 'Caroline adopted a puppy');
      return session.flush();
    };
    const staged = service.session('u', run, cachedStep);
    staged.save('fact', 'Caroline adopted a puppy');
    // Staged, not yet searchable by either list (and a run that fails never flushes).
    expect(await service.recall('u', 'puppy', { mode: 'lexical' })).toEqual([]);
    expect(await service.store.searchVector('u', query!, { model: embedder.id })).toEqual([]);
    await attempt();
    expect(embedder.calls).toBe(1);
    const stored = await service.store.searchVector('u', query!, { model: embedder.id });
    await attempt(); // a retry of the same run: the cached vectors, byte for byte
    expect(embedder.calls).toBe(1);
    const again = await service.store.searchVector('u', query!, { model: embedder.id });
    expect(again[0]!.score).toBe(stored[0]!.score);
    expect([...cache.keys()]).toEqual([expect.stringMatching(/^longterm:embeddings:/)]);
    expect((await service.recall('u', 'puppy'))[0]).toMatchObject({
      lexical: { rank: 1 },
      vector: { rank: 1 },
    });
  });

  it('saves a record whose text the model answers with all zeros, without a vector', async () => {
    const service = await boot({
      uri: 'memory://',
      recall: { embedder: new HashingEmbeddingModel(), backfill: false },
    });
    const seq = await service.nextSeq('u');
    // No word: the hashing model has nothing to hash and answers zeros.
    expect(
      await service.saveMany([{ entityId: 'u', key: 'shrug', value: '¯\\_(°)_/¯ ?!', seq }]),
    ).toEqual({ applied: [true] });
    await service.indexMessages(
      'u',
      [{ conversationId: 'c', position: 1, messageId: 'm', role: 'user', text: '?! …' }],
      { seq, updatedAt: 1 },
    );
    expect(await service.embedPending()).toBe(0);
    expect((await service.store.load('u', 'shrug'))?.value).toBe('¯\\_(°)_/¯ ?!');
  });

  it('answers a query the model finds nothing to embed in with the full-text list alone', async () => {
    // A model that answers all zeros: no direction, so no vector list.
    const zeros = async (texts: string[]) => texts.map(() => new Array(8).fill(0) as number[]);
    const service = await boot({
      uri: 'memory://',
      recall: { embedder: { id: 'zeros', embed: zeros }, backfill: false },
    });
    await service.saveMany([{ entityId: 'u', key: 'k', value: 'two cats', seq: 1 }]);
    expect((await service.recall('u', 'cats')).map((hit) => hit.record.key)).toEqual(['k']);
    expect(await rejectionOf(service.recall('u', 'cats', { mode: 'vector' }))).toMatchObject({
      argument: 'query',
    });
  });

  it('skips a record the model refuses, and embeds the others of its page', async () => {
    const inner = new HashingEmbeddingModel({ dimensions: 16 });
    const picky: EmbeddingModel = {
      id: 'picky',
      embed: async (texts) => {
        if (texts.some((text) => text.includes('poison'))) throw new Error('input rejected');
        return inner.embed(texts);
      },
    };
    const service = await boot({ uri: 'memory://', recall: { embedder: picky, backfill: false } });
    await service.store.saveMany([
      { entityId: 'u', key: 'a', value: 'apples', seq: 1 },
      { entityId: 'u', key: 'b', value: 'poison ivy', seq: 1 },
      { entityId: 'u', key: 'c', value: 'cherries', seq: 1 },
    ]);
    expect(await service.embedPending(10)).toBe(3);
    expect(service.embeddingStatus()).toMatchObject({ lastPass: { complete: true } });
    expect(service.embeddingStatus()!.lastError).toBeUndefined();
    expect(await service.embedPending(10)).toBe(0);
    const found = await service.recall('u', 'apples cherries ivy', { mode: 'vector' });
    expect(found.map((hit) => hit.record.key).sort()).toEqual(['a', 'c']);
  });

  it('flushes without vectors when the embedder fails, and the background embedding adds them', async () => {
    const embedder = new CountingEmbedder();
    const service = await boot({ uri: 'memory://', recall: { embedder, backfill: false } });
    embedder.failing = true;
    const session = service.session('u', { seq: await service.nextSeq('u'), updatedAt: 1 });
    session.save('fact', 'Caroline adopted a puppy');
    expect(await session.flush()).toMatchObject({ flushed: 1 });
    expect((await service.recall('u', 'puppy')).map((hit) => hit.record.key)).toEqual(['fact']);
    embedder.failing = false;
    expect(await service.embedPending()).toBe(1);
    expect((await service.recall('u', 'puppy'))[0]!.vector).toEqual({
      rank: 1,
      score: expect.any(Number),
    });
  });
});
