import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { consolidate } from '../../src/modules/formation/consolidation-rules.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import type {
  MemoryCandidate,
  ConsolidationChoice,
} from '../../src/modules/formation/formed-memory.interface.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);

describe.each([
  ['memory', 'memory://'],
  ['SQLite', 'sqlite::memory:'],
  ['PostgreSQL', TEST_POSTGRES_URL],
  ['MariaDB', TEST_MYSQL_URL],
  ['Redis', TEST_REDIS_URL],
])('formed memories on %s', (_name, uri) => {
  let moduleRef: TestingModule;
  let longterm: LongtermMemoryService;
  let memories: FormedMemories;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [LongtermMemoryModule.forRoot({ uri })],
    }).compile();
    await moduleRef.init();
    longterm = moduleRef.get(LongtermMemoryService);
    memories = new FormedMemories(longterm);
  });
  afterAll(() => moduleRef?.close());

  /** One formation job of `entityId`: consolidates and writes at a fresh seq. */
  async function job(
    entityId: string,
    day: number,
    candidates: MemoryCandidate[],
    choose: (
      held: Awaited<ReturnType<FormedMemories['list']>>['memories'],
    ) => ConsolidationChoice[],
    seq?: number,
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
      { seq: seq ?? (await longterm.nextSeq(entityId)), at },
      result,
      {
        jobId,
        conversationId: 'c1',
        runId: `run-${day}`,
        model: 'test',
        operations: result.operations,
        at,
      },
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
    const seq = await longterm.nextSeq(entity);
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
});
