import { describe, expect, it } from '@jest/globals';
import { InMemoryLongtermStore } from '../../src/modules/longterm/backends/in-memory.longterm.store.js';
import { LongtermFlushError } from '../../src/modules/longterm/errors/longterm.errors.js';
import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import { LongtermSession } from '../../src/modules/longterm/session/longterm-session.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { ValueTooLargeError } from '../../src/common/errors/value-too-large.error.js';

/** Counts the calls that reach the store: the subject here is what the session does without it. */
function counted(store: LongtermMemoryStore): { store: LongtermMemoryStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function'
        ? (...args: unknown[]) => (
            calls.push(String(property)),
            (value as (...a: unknown[]) => unknown).apply(target, args)
          )
        : value;
    },
  });
  return { store: proxy, calls };
}

describe('LongtermSession', () => {
  it('stages saves without I/O; a re-save replaces the value and keeps its first position', async () => {
    const { store, calls } = counted(new InMemoryLongtermStore());
    const session = new LongtermSession(store, 'e', 4, 1_000);
    session.save('b', 1);
    session.save('a', { z: 1, y: 2 });
    session.save('b', 2, { ttlMs: 500 });
    expect(calls).toEqual([]);
    expect(session.staged()).toEqual([
      { key: 'b', value: '2', ttlMs: 500 },
      { key: 'a', value: '{"y":2,"z":1}' },
    ]);
  });

  it('refuses a value over the limit when it is staged, so the flush of the others goes through', async () => {
    const store = new InMemoryLongtermStore();
    const session = new LongtermSession(store, 'e', 4, 1_000, 100);
    session.save('small', 'x'.repeat(98));
    expect(() => session.save('big', 'x'.repeat(99))).toThrow(ValueTooLargeError);
    expect(session.staged().map((row) => row.key)).toEqual(['small']);
    expect((await session.flush()).flushedKeys).toEqual(['small']);
  });

  it('overlays staged rows on the store for load and search', async () => {
    const store = new InMemoryLongtermStore();
    await store.saveMany([
      { entityId: 'e', key: 'case/1', value: 'stored 1', seq: 1 },
      { entityId: 'e', key: 'case/2', value: 'stored 2', seq: 1 },
    ]);
    const session = new LongtermSession(store, 'e', 4, 1_000);
    session.save('case/2', 'staged 2');
    session.save('case/0', 'staged 0');
    expect(await session.load('case/2')).toEqual({
      entityId: 'e',
      key: 'case/2',
      value: 'staged 2',
      seq: 4,
      updatedAt: 1_000,
    });
    expect((await session.load('case/1'))?.value).toBe('stored 1');
    expect((await session.search('case/', 10)).map((r) => r.value)).toEqual([
      'staged 0',
      'stored 1',
      'staged 2',
    ]);
    expect((await session.search('case/', 2)).map((r) => r.key)).toEqual(['case/0', 'case/1']);
  });

  it('flushes in one batch with the run’s seq and time, counting and naming refused rows', async () => {
    const { store, calls } = counted(new InMemoryLongtermStore());
    await store.save({ entityId: 'e', key: 'newer', value: 'keep', seq: 9 });
    calls.length = 0;
    const session = new LongtermSession(store, 'e', 5, 2_000);
    session.save('fresh', 'x');
    session.save('newer', 'stale');
    expect(await session.flush()).toEqual({
      flushed: 1,
      refused: 1,
      flushedKeys: ['fresh'],
      refusedKeys: ['newer'],
    });
    expect(calls).toEqual(['saveMany']);
    expect(await store.load('e', 'fresh')).toEqual({
      entityId: 'e',
      key: 'fresh',
      value: 'x',
      seq: 5,
      updatedAt: 2_000,
    });
    expect((await store.load('e', 'newer'))?.value).toBe('keep');
    // The same rows again (a retried run): they converge, applied again, same bytes.
    const again = new LongtermSession(store, 'e', 5, 2_000);
    again.restage(session.staged());
    expect(await again.flush()).toEqual({
      flushed: 1,
      refused: 1,
      flushedKeys: ['fresh'],
      refusedKeys: ['newer'],
    });
    expect(await store.load('e', 'fresh')).toEqual({
      entityId: 'e',
      key: 'fresh',
      value: 'x',
      seq: 5,
      updatedAt: 2_000,
    });
  });

  it('records what each tool step staged, and wraps a failed flush in LongtermFlushError naming the keys', async () => {
    const failing = new (class extends InMemoryLongtermStore {
      override async saveMany(): Promise<never> {
        throw new Error('connection reset');
      }
    })();
    const session = new LongtermSession(failing, 'e', 1, 1);
    const first = session.forStep();
    const second = session.forStep();
    first.save('a', 1);
    second.save('b', 2);
    first.save('c', 3);
    expect(first.stagedByStep().map((r) => r.key)).toEqual(['a', 'c']);
    expect(second.stagedByStep().map((r) => r.key)).toEqual(['b']);
    const error = await rejectionOf(session.flush());
    expect(error).toBeInstanceOf(LongtermFlushError);
    expect((error as Error).message).toContain('"a", "b", "c"');
  });
});
