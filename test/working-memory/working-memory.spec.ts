import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { DropOldestCompactor } from '../../src/modules/working-memory/compactors/drop-oldest.compactor.js';
import { SummarizeCompactor } from '../../src/modules/working-memory/compactors/summarize.compactor.js';
import { WorkingMemoryOverflowError } from '../../src/modules/working-memory/errors/working-memory.errors.js';
import type { WorkingMemorySnapshot } from '../../src/modules/working-memory/interfaces/working-memory.interface.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import type { WorkingMemoryModuleOptions } from '../../src/modules/working-memory/working-memory.options.js';
import { WorkingMemoryService } from '../../src/modules/working-memory/working-memory.service.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { workingMemoryBackends } from '../support/working-memory-backends.js';

const prefix = `test-wm-${process.pid}:`;
/** Every case runs on memory, Redis and a Redis Cluster of the suite's own. */
const { backends, cleanup } = await workingMemoryBackends(prefix);

const opened: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
afterAll(cleanup);

/** A JSON string value that makes the entry at `key` exactly `bytes` bytes (key and quotes count). */
const sized = (key: string, bytes: number) => 'x'.repeat(bytes - 2 - Buffer.byteLength(key));

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

  it('gets, sets and deletes JSON values; size is the sum of their keys’ and values’ bytes', async () => {
    const memory = (await service()).for(conversation());
    expect(await memory.get('missing')).toBeUndefined();
    await memory.set('plan', { steps: ['a', 'b'], done: false });
    await memory.set('name', 'Zoë');
    expect(await memory.get('plan')).toEqual({ steps: ['a', 'b'], done: false });
    expect(await memory.sizeBytes()).toBe(
      Buffer.byteLength('plan{"steps":["a","b"],"done":false}') + Buffer.byteLength('name"Zoë"'),
    );
    await memory.delete('plan');
    expect(await memory.get('plan')).toBeUndefined();
    expect(await memory.sizeBytes()).toBe(Buffer.byteLength('name"Zoë"'));
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
    await memory.set('a', sized('a', 600));
    await memory.set('b', sized('b', 400));
    expect(await memory.sizeBytes()).toBe(1_000);
    const error = await rejectionOf(memory.set('c', 1));
    expect(error).toBeInstanceOf(WorkingMemoryOverflowError);
    expect(error).toMatchObject({ key: 'c', attemptedBytes: 1_002, capBytes: 1_000 });
    expect(await memory.keys()).toEqual(['a', 'b']);
    expect(await memory.sizeBytes()).toBe(1_000);
  });

  it('compacts on crossing the soft cap: least recently used first, protected and written keys kept', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 500, protectedPrefixes: ['pin/'] });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('pin/goal', sized('pin/goal', 200));
    await memory.set('old', sized('old', 200));
    await memory.set('mid', sized('mid', 200));
    await memory.get('old');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await memory.set('new', sized('new', 200)); // 800 > 750 soft cap: evict LRU down to 500
      // The size it logs is the one after the evictions, said as such.
      expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
        expect.stringMatching(
          /crossed its soft cap of 750 bytes; evicted mid, old, now at 400 bytes$/,
        ),
      ]);
    } finally {
      warn.mockRestore();
    }
    expect(await memory.keys()).toEqual(['pin/goal', 'new']);
    expect(await memory.sizeBytes()).toBe(400);
  });

  it('keeps a single entry larger than the target, evicting the others', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 300 });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('a', sized('a', 200));
    await memory.set('b', sized('b', 200));
    await memory.set('big', sized('big', 900));
    expect(await memory.keys()).toEqual(['big']);
    expect(await memory.sizeBytes()).toBe(900);
  });

  it('rolls back the compactor when the write still does not fit', async () => {
    const compactor = new DropOldestCompactor({ targetBytes: 100, protectedPrefixes: ['pin/'] });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    await memory.set('pin/a', sized('pin/a', 500));
    await memory.set('loose', sized('loose', 200));
    const error = await rejectionOf(memory.set('huge', sized('huge', 600)));
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

  it('counts key bytes, so long key names cannot bypass the cap', async () => {
    const memory = (await service({ capBytes: 1_000, compactor: false })).for(conversation());
    const name = (i: number) => `${i}`.padEnd(100, 'k');
    for (let i = 0; i < 9; i += 1) await memory.set(name(i), 1);
    expect(await memory.sizeBytes()).toBe(909);
    expect(await rejectionOf(memory.set(name(9), 1))).toMatchObject({
      key: name(9),
      attemptedBytes: 1_010,
    });
    expect(await memory.keys()).toHaveLength(9);
  });

  it('drop-oldest evicts down to half of the configured cap by default', async () => {
    const capBytes = 256 * 1024;
    const memory = (await service({ capBytes })).for(conversation());
    const sizes: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await memory.set(`k${i}`, sized(`k${i}`, 60 * 1024));
      sizes.push(await memory.sizeBytes());
    }
    // The fourth write crossed the soft cap (75 %): evicted down to half the cap, itself kept.
    expect(sizes[3]).toBeLessThanOrEqual(capBytes / 2);
    expect(await memory.keys()).toEqual(['k2', 'k3', 'k4']);
  });

  it('summarizing compactor: a write that still overflows leaves the rings unfolded', async () => {
    const llm = new ScriptedLlm([{ content: 'sum' }, { content: 'sum' }]);
    const compactor = new SummarizeCompactor({ llm, keepRecent: 2 });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    for (let i = 0; i < 20; i += 1) await memory.append('notes', `n${i}-xxxxxxxx`);
    const before = await memory.sizeBytes();
    const error = await rejectionOf(memory.set('huge', sized('huge', 990)));
    expect(error).toBeInstanceOf(WorkingMemoryOverflowError);
    expect(llm.calls.length).toBeGreaterThan(0); // it did fold, and then rolled back
    expect(await memory.ring('notes')).toHaveLength(20);
    expect(await memory.sizeBytes()).toBe(before);
    expect(await memory.keys()).toEqual(['notes']);
  });

  it('summarizing compactor: protected prefixes are never folded', async () => {
    const llm = new ScriptedLlm(Array.from({ length: 4 }, () => ({ content: 'sum' })));
    const compactor = new SummarizeCompactor({
      llm,
      keepRecent: 2,
      protectedPrefixes: ['resume:'],
    });
    const memory = (await service({ capBytes: 1_000, compactor })).for(conversation());
    for (let i = 0; i < 16; i += 1) {
      await memory.append('resume:state', `s${i}-xxxxxxxx`);
      await memory.append('notes', `n${i}-xxxxxxxx`);
    }
    await memory.set('big', sized('big', 500));
    expect(await memory.ring('resume:state')).toHaveLength(16);
    expect((await memory.ring('notes'))[0]).toEqual({ summary: 'sum' });
  });

  it('summarizing compactor: summaries come from the handle’s summary cache (a replay on another worker)', async () => {
    const recorded = new Map<string, string>();
    const summaries = async (key: string, compute: () => Promise<string>) => {
      if (!recorded.has(key)) recorded.set(key, await compute());
      return recorded.get(key)!;
    };
    const folds: unknown[][] = [];
    for (const answer of ['first worker', 'second worker']) {
      const llm = new ScriptedLlm([{ content: answer }]);
      const compactor = new SummarizeCompactor({ llm, keepRecent: 2 });
      const memory = (await service({ capBytes: 1_000, compactor })).for(conversation(), {
        summaries,
      });
      for (let i = 0; i < 10; i += 1) await memory.append('notes', `n${i}-xxxxxxxx`);
      await memory.set('big', sized('big', 800));
      folds.push(await memory.ring('notes'));
      expect(llm.calls).toHaveLength(answer === 'first worker' ? 1 : 0);
    }
    expect(folds[0]![0]).toEqual({ summary: 'first worker' });
    expect(folds[1]).toEqual(folds[0]);
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
    expect(await memory.keys()).toEqual(['a', 'b']); // a failed hook is tried again a TTL later
    clock += 1_001;
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

  it('evicts thousands of entries in one write (the Lua script works in chunks)', async () => {
    const memory = (await service({ capBytes: 200_000 })).for(conversation());
    const count = 9_000;
    await Promise.all(
      Array.from({ length: count }, (_, i) => memory.set(`k${String(i).padStart(5, '0')}`, 1)),
    );
    expect(await memory.keys()).toHaveLength(count);
    await memory.set('big', sized('big', 140_000));
    expect(await memory.keys()).toEqual(['big']);
    await memory.set('after', 1);
    expect(await memory.sizeBytes()).toBe(140_000 + Buffer.byteLength('after1'));
  }, 60_000);

  it('loses no item under concurrent appends', async () => {
    const svc = await service();
    const id = conversation();
    await Promise.all(Array.from({ length: 20 }, (_, i) => svc.for(id).append('log', i, 100)));
    expect((await svc.for(id).ring<number>('log')).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  });
});

describe('WorkingMemoryModule options', () => {
  const boot = async (options: Record<string, unknown>) => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        WorkingMemoryModule.forRoot({
          backend: 'memory',
          sweep: false,
          ...options,
        } as WorkingMemoryModuleOptions),
      ],
    }).compile();
    opened.push(moduleRef);
    return moduleRef;
  };

  it.each([
    [{ capBytes: Number.NaN }, 'capBytes'],
    [{ capBytes: -1 }, 'capBytes'],
    [{ capBytes: 1.5 }, 'capBytes'],
    [{ capBytes: '1mb' }, 'capBytes'],
    [{ softCapRatio: 0 }, 'softCapRatio'],
    [{ softCapRatio: 1.5 }, 'softCapRatio'],
    [{ ttlMs: 0 }, 'ttlMs'],
    [{ ttlMs: Number.POSITIVE_INFINITY }, 'ttlMs'],
    [{ compactor: {} }, 'compactor'],
    [{ onExpire: 'archive' }, 'onExpire'],
    [{ sweep: { intervalMs: 0 } }, 'sweep.intervalMs'],
    [
      { compactor: new DropOldestCompactor({ targetBytes: 2_000 }), capBytes: 1_000 },
      'compactor.targetBytes',
    ],
    [{ capByte: 1_000 }, 'capByte'],
    [{ backend: 'redis' }, 'url'],
  ])('refuses %j at bootstrap, naming %s', async (options, option) => {
    const error = await rejectionOf(boot(options));
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error).toMatchObject({ moduleName: 'WorkingMemoryModule', option });
  });

  it('suggests the nearest option for a typo', async () => {
    const error = await rejectionOf(boot({ capByte: 1_000 }));
    expect((error as Error).message).toContain('did you mean "capBytes"?');
  });
});
