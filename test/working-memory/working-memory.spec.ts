import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { DropOldestCompactor } from '../../src/modules/working-memory/compactors/drop-oldest.compactor.js';
import { SummarizeCompactor } from '../../src/modules/working-memory/compactors/summarize.compactor.js';
import { WorkingMemoryOverflowError } from '../../src/modules/working-memory/errors/working-memory.errors.js';
import type { WorkingMemorySnapshot } from '../../src/modules/working-memory/interfaces/working-memory.interface.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import type { WorkingMemoryModuleOptions } from '../../src/modules/working-memory/working-memory.options.js';
import { WorkingMemoryService } from '../../src/modules/working-memory/working-memory.service.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';

const prefix = `test-wm-${process.pid}:`;
const backends: Array<[string, WorkingMemoryModuleOptions]> = [
  ['memory', { backend: 'memory' }],
  ['redis', { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: prefix }],
];

const opened: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
afterAll(async () => {
  const redis = new Redis(TEST_REDIS_URL);
  await deleteRedisKeys(redis, `${prefix}*`);
  await redis.quit();
});

/** A JSON string value of exactly `bytes` bytes once stored (the quotes count). */
const sized = (bytes: number) => 'x'.repeat(bytes - 2);

describe.each(backends)('working memory (%s)', (_name, base) => {
  let clock = 1_000_000;
  async function service(
    options: Partial<WorkingMemoryModuleOptions> = {},
  ): Promise<WorkingMemoryService> {
    const moduleRef = await Test.createTestingModule({
      imports: [
        WorkingMemoryModule.forRoot({
          ...base,
          sweep: false,
          now: () => clock,
          ...options,
        } as WorkingMemoryModuleOptions),
      ],
    }).compile();
    opened.push(moduleRef);
    await moduleRef.init();
    return moduleRef.get(WorkingMemoryService);
  }
  const conversation = () => `wm-${Math.random().toString(36).slice(2)}`;

  it('gets, sets and deletes JSON values; size is the sum of their bytes', async () => {
    const memory = (await service()).for(conversation());
    expect(await memory.get('missing')).toBeUndefined();
    await memory.set('plan', { steps: ['a', 'b'], done: false });
    await memory.set('name', 'Zoë');
    expect(await memory.get('plan')).toEqual({ steps: ['a', 'b'], done: false });
    expect(await memory.sizeBytes()).toBe(
      Buffer.byteLength('{"steps":["a","b"],"done":false}') + Buffer.byteLength('"Zoë"'),
    );
    await memory.delete('plan');
    expect(await memory.get('plan')).toBeUndefined();
    expect(await memory.sizeBytes()).toBe(Buffer.byteLength('"Zoë"'));
    for (const badKey of ['', 'a\u0000b', 'k\uD800'])
      expect(await rejectionOf(memory.set(badKey, 1))).toBeInstanceOf(InvalidArgumentError);
    expect(await memory.keys()).toEqual(['name']);
  });

  it('orders keys by use: get, set and append count; keys, ring and sizeBytes do not', async () => {
    const memory = (await service()).for(conversation());
    await memory.set('a', 1);
    await memory.set('b', 2);
    await memory.append('r', 'x');
    expect(await memory.keys()).toEqual(['a', 'b', 'r']);
    await memory.get('a');
    await memory.ring('r');
    await memory.keys();
    await memory.sizeBytes();
    expect(await memory.keys()).toEqual(['b', 'r', 'a']);
    await memory.append('r', 'y');
    await memory.set('b', 3);
    expect(await memory.keys()).toEqual(['a', 'r', 'b']);
  });

  it('keeps the newest maxItems of a ring, oldest first', async () => {
    const memory = (await service()).for(conversation());
    for (let i = 0; i < 6; i += 1) await memory.append('events', { i }, 4);
    expect(await memory.ring('events')).toEqual([{ i: 2 }, { i: 3 }, { i: 4 }, { i: 5 }]);
    expect(await memory.ring('none')).toEqual([]);
    await memory.set('plain', 1);
    expect(await rejectionOf(memory.append('plain', 2))).toBeInstanceOf(InvalidArgumentError);
  });

  it('accepts a write exactly at the cap, and refuses one byte more without changing anything', async () => {
    const memory = (await service({ capBytes: 1_000, compactor: false })).for(conversation());
    await memory.set('a', sized(600));
    await memory.set('b', sized(400));
    expect(await memory.sizeBytes()).toBe(1_000);
    const error = await rejectionOf(memory.set('c', 1));
    expect(error).toBeInstanceOf(WorkingMemoryOverflowError);
    expect(error).toMatchObject({ key: 'c', attemptedBytes: 1_001, capBytes: 1_000 });
    expect(await memory.keys()).toEqual(['a', 'b']);
    expect(await memory.sizeBytes()).toBe(1_000);
  });

  it('compacts on crossing the soft cap: least recently used first, protected and written keys kept', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 500, protectedPrefixes: ['pin/'] });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('pin/goal', sized(200));
    await memory.set('old', sized(200));
    await memory.set('mid', sized(200));
    await memory.get('old');
    await memory.set('new', sized(200)); // 800 > 750 soft cap: evict LRU down to 500
    expect(await memory.keys()).toEqual(['pin/goal', 'new']);
    expect(await memory.sizeBytes()).toBe(400);
  });

  it('keeps a single entry larger than the target, evicting the others', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 300 });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('a', sized(200));
    await memory.set('b', sized(200));
    await memory.set('big', sized(900));
    expect(await memory.keys()).toEqual(['big']);
    expect(await memory.sizeBytes()).toBe(900);
  });

  it('rolls back the compactor when the write still does not fit', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 100, protectedPrefixes: ['pin/'] });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('pin/a', sized(500));
    await memory.set('loose', sized(200));
    const error = await rejectionOf(memory.set('huge', sized(600)));
    expect(error).toMatchObject({ key: 'huge', attemptedBytes: 1_100, capBytes: 1_000 });
    expect(await memory.keys()).toEqual(['pin/a', 'loose']);
    expect(await memory.sizeBytes()).toBe(700);
  });

  it('summarizing compactor: folds a ring’s older items through the model, only if smaller, cached', async () => {
    const llm = new ScriptedLlm([{ content: 'short summary' }]);
    const compactor = new SummarizeCompactor({ llm, keepRecent: 2 });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    for (let i = 0; i < 6; i += 1)
      await memory.append('notes', `note ${i} ${'detail '.repeat(20)}`);
    const ring = await memory.ring<unknown>('notes');
    // Crossing the soft cap at the fifth note folded notes 0–2; the sixth was appended after.
    expect(ring[0]).toEqual({ summary: 'short summary' });
    expect(ring.slice(1)).toEqual([3, 4, 5].map((i) => `note ${i} ${'detail '.repeat(20)}`));
    expect(llm.calls).toHaveLength(1);
    expect(await compactor.fold([1, 2, 3])).toBeUndefined();
  });

  it('reclaims idle memory after the on-expire hook, unless it failed or the memory was used meanwhile', async () => {
    const expired: WorkingMemorySnapshot[] = [];
    let failHook = true;
    let touchDuringHook: (() => Promise<unknown>) | undefined;
    const svc = await service({
      ttlMs: 1_000,
      onExpire: async (snapshot) => {
        if (failHook) throw new Error('long-term unreachable');
        await touchDuringHook?.();
        expired.push(snapshot);
      },
    });
    const id = conversation();
    const memory = svc.for(id);
    await memory.set('a', 1);
    await memory.set('b', { x: 2 });
    clock += 1_001;
    await svc.sweep();
    expect(await memory.keys()).toEqual(['a', 'b']);
    failHook = false;
    touchDuringHook = () => memory.get('a');
    await svc.sweep();
    expect(await memory.keys()).toEqual(['b', 'a']);
    touchDuringHook = undefined;
    clock += 1_001;
    expect(await svc.sweep()).toBeGreaterThan(0);
    expect(await memory.keys()).toEqual([]);
    expect(expired.filter((snapshot) => snapshot.conversationId === id).at(-1)).toMatchObject({
      conversationId: id,
      entries: [
        { key: 'b', value: { x: 2 } },
        { key: 'a', value: 1 },
      ],
    });
  });

  it('loses no item under concurrent appends', async () => {
    const svc = await service();
    const id = conversation();
    await Promise.all(Array.from({ length: 20 }, (_, i) => svc.for(id).append('log', i, 100)));
    expect((await svc.for(id).ring<number>('log')).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
});
