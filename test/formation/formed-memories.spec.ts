import { beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { consolidate } from '../../src/modules/formation/consolidation-rules.js';
import {
  type FormationJobRecord,
  FormedMemories,
} from '../../src/modules/formation/formed-memories.js';
import type {
  MemoryCandidate,
  ConsolidationChoice,
} from '../../src/modules/formation/formed-memory.interface.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { formedEntityOf } from '../../src/modules/longterm/recall/derived-entities.js';
import { FORMATION_BACKENDS, formationTier } from './formation-backends.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);

describe.each(FORMATION_BACKENDS)('formed memories on %s', (_name, uri) => {
  const tier = formationTier(uri);
  let longterm: LongtermMemoryService;
  let memories: FormedMemories;
  beforeAll(() => {
    ({ longterm, memories } = tier());
  });

  /** One formation job of `entityId`: consolidates and writes at a fresh seq. */
  async function job(
    entityId: string,
    day: number,
    candidates: MemoryCandidate[],
    choose: (
      held: Awaited<ReturnType<FormedMemories['list']>>['memories'],
    ) => ConsolidationChoice[],
    seq?: number,
    beforeRecord?: () => Promise<Partial<FormationJobRecord>>,
  ) {
    const at = T0 + day * DAY;
    const held = (await memories.list(entityId, { limit: 100 })).memories;
    const jobId = `job-${day}`;
    const result = consolidate({
      entityId,
      jobId,
      conversationId: 'c1',
      runId: `run-${day}`,
      messageIds: ['m1'],
      now: at,
      observedAt: at,
      candidates,
      choices: choose(held),
      neighbours: held,
      maxCandidates: 10,
    });
    const written = await memories.write(
      entityId,
      { seq: seq ?? (await memories.nextSeq(entityId)), at },
      result,
      {
        jobId,
        conversationId: 'c1',
        runId: `run-${day}`,
        model: 'test',
        operations: result.operations,
        at,
      },
      beforeRecord,
    );
    return { written, result };
  }
  const fact = (text: string, validFrom?: number): MemoryCandidate => ({
    text,
    kind: 'fact',
    messageIds: ['m1'],
    ...(validFrom === undefined ? {} : { validFrom }),
  });

  it('keeps every version: active, all, as of a time, and a history in order', async () => {
    const entity = `fm-${randomUUID()}`;
    await job(entity, 1, [fact('Ada lives in Paris'), fact('Ada likes jazz')], () => [
      { op: 'ADD' },
      { op: 'ADD' },
    ]);
    const moved = T0 + 5 * DAY;
    await job(entity, 10, [fact('Ada lives in Berlin', moved)], (held) => [
      { op: 'UPDATE', target: held.find((m) => m.text.includes('Paris'))!.id },
    ]);
    const active = (await memories.list(entity, { limit: 10 })).memories.map((m) => m.text).sort();
    expect(active).toEqual(['Ada likes jazz', 'Ada lives in Berlin']);
    expect((await memories.list(entity, { state: 'all', limit: 10 })).memories).toHaveLength(3);
    const then = (await memories.list(entity, { asOf: T0 + 3 * DAY, limit: 10 })).memories;
    expect(then.map((m) => m.text).sort()).toEqual(['Ada likes jazz', 'Ada lives in Paris']);
    const berlin = (await memories.list(entity, { limit: 10 })).memories.find((m) =>
      m.text.includes('Berlin'),
    )!;
    const history = await memories.history(entity, berlin.id);
    expect(history.map((m) => [m.text, m.sources[0]!.runId])).toEqual([
      ['Ada lives in Paris', 'run-1'],
      ['Ada lives in Berlin', 'run-10'],
    ]);
    expect(await memories.history(entity, history[0]!.id)).toEqual(history);
    expect((await memories.job(entity, 'job-10'))?.operations).toMatchObject([{ op: 'UPDATE' }]);
  });

  it('pages through the list with filters, and finds memories by their text only', async () => {
    const entity = `fm-${randomUUID()}`;
    const texts = Array.from({ length: 7 }, (_, i) => `Ada visited city number ${i} by train`);
    await job(
      entity,
      1,
      texts.map((t) => fact(t)),
      () => texts.map(() => ({ op: 'ADD' }) as const),
    );
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const { memories: got, next } = await memories.list(entity, {
        limit: 3,
        ...(after ? { after } : {}),
      });
      seen.push(...got.map((m) => m.text));
      if (!next) break;
      after = next;
    }
    expect(seen.sort()).toEqual([...texts].sort());
    const nearest = await memories.nearest(
      entity,
      'which city did Ada visit by train? number 4',
      3,
      T0 + 2 * DAY,
    );
    expect(nearest[0]!.text).toBe(texts[4]);
    // Ids, kinds and sources are not what a memory is found by.
    expect(await memories.nearest(entity, 'fact run c1', 3, T0 + 2 * DAY)).toEqual([]);
  });

  it('an erasure wins over a job that began before it: nothing of the job is written', async () => {
    const entity = `fm-${randomUUID()}`;
    const seq = await memories.nextSeq(entity);
    await longterm.deleteEntity(entity);
    const { written } = await job(
      entity,
      1,
      [fact('Ada lives in Paris')],
      () => [{ op: 'ADD' }],
      seq,
    );
    expect(written).toBe(false);
    expect((await memories.list(entity, { state: 'all', limit: 10 })).memories).toEqual([]);
    expect(await memories.job(entity, 'job-1')).toBeNull();
  });

  it('writes what comes before the record (a profile patch) only once the memories are written, with the record', async () => {
    const entity = `fm-${randomUUID()}`;
    const before: string[] = [];
    const extra = async () => {
      before.push('called');
      return { profile: { status: 'applied' as const, members: ['name'], version: 1 } };
    };
    await job(entity, 1, [fact('Ada lives in Paris')], () => [{ op: 'ADD' }], undefined, extra);
    expect(before).toEqual(['called']);
    expect((await memories.job(entity, 'job-1'))?.profile).toEqual({
      status: 'applied',
      members: ['name'],
      version: 1,
    });
    // A job whose closing is refused (the memory it replaces was closed since it read it) calls
    // nothing: its consolidation is made while Paris holds, another job replaces Paris first.
    const held = (await memories.list(entity, { limit: 10 })).memories;
    const stale = consolidate({
      entityId: entity,
      jobId: 'job-3',
      conversationId: 'c1',
      runId: 'run-3',
      messageIds: ['m1'],
      now: T0 + 3 * DAY,
      observedAt: T0 + 3 * DAY,
      candidates: [fact('Ada lives in Oslo')],
      choices: [{ op: 'UPDATE', target: held[0]!.id }],
      neighbours: held,
      maxCandidates: 10,
    });
    const seq = await memories.nextSeq(entity);
    await job(entity, 2, [fact('Ada lives in Rome')], () => [
      { op: 'UPDATE', target: held[0]!.id },
    ]);
    const written = await memories.write(
      entity,
      { seq, at: T0 + 3 * DAY },
      stale,
      {
        jobId: 'job-3',
        conversationId: 'c1',
        runId: 'run-3',
        model: 'test',
        operations: stale.operations,
        at: T0,
      },
      extra,
    );
    expect(written).toBe(false);
    expect(before).toEqual(['called']);
    expect(await memories.job(entity, 'job-3')).toBeNull();
  });

  it("is apart from the entity's own records, found by what holds now, and erased with the entity", async () => {
    const entity = `fm-${randomUUID()}`;
    await longterm.save({ entityId: entity, key: 'note', value: 'Ada plays chess', seq: 1 });
    await job(entity, 1, [fact('Ada lives in Paris')], () => [{ op: 'ADD' }]);
    const paris = (await memories.list(entity, { limit: 10 })).memories[0]!;
    await job(entity, 2, [fact('Ada lives in Berlin')], () => [{ op: 'UPDATE', target: paris.id }]);
    // The entity's own records, search and recall show none of its formed memories.
    expect((await longterm.store.search(entity, '', 10)).map((r) => r.key)).toEqual(['note']);
    expect(await longterm.recall(entity, 'Ada lives in Paris Berlin')).toMatchObject([
      { record: { key: 'note' } },
    ]);
    // A closed version is not found by its words; the version that holds is.
    expect((await memories.nearest(entity, 'Paris', 5, Date.now())).map((m) => m.text)).toEqual([]);
    expect((await memories.nearest(entity, 'lives', 5, Date.now())).map((m) => m.text)).toEqual([
      'Ada lives in Berlin',
    ]);
    await longterm.deleteEntity(entity);
    expect((await memories.list(entity, { state: 'all', limit: 10 })).memories).toEqual([]);
    expect(await memories.job(entity, 'job-2')).toBeNull();
  });
});

describe('formed memories and the default TTL', () => {
  it("keeps formed memories past the tier's default TTL (their history is not a cache)", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [LongtermMemoryModule.forRoot({ uri: 'memory://', defaultTtlMs: 1_000 })],
    }).compile();
    await moduleRef.init();
    try {
      const memories = new FormedMemories(moduleRef.get(LongtermMemoryService));
      const at = Date.now();
      const result = consolidate({
        entityId: 'u1',
        jobId: 'j1',
        conversationId: 'c1',
        runId: 'r1',
        messageIds: ['m1'],
        now: at,
        observedAt: at,
        candidates: [{ text: 'Ada likes jazz', kind: 'fact', messageIds: ['m1'] }],
        choices: [{ op: 'ADD' }],
        neighbours: [],
        maxCandidates: 10,
      });
      const record = { jobId: 'j1', conversationId: 'c1', runId: 'r1', model: 't', at };
      const seq = await memories.nextSeq('u1');
      expect(
        await memories.write('u1', { seq, at }, result, {
          ...record,
          operations: result.operations,
        }),
      ).toBe(true);
      const store = moduleRef.get(LongtermMemoryService).store;
      const formed = formedEntityOf('u1');
      const [row] = await store.search(formed, 'memory/', 10);
      expect(row!.expiresAt).toBeUndefined();
      // An entity's own record still takes the default.
      await moduleRef
        .get(LongtermMemoryService)
        .save({ entityId: 'u1', key: 'k', value: 'v', seq });
      expect((await store.load('u1', 'k'))!.expiresAt).toBeGreaterThan(Date.now());
    } finally {
      await moduleRef.close();
    }
  });
});
