import type {
  LongtermMemoryStore,
  LongtermSaveInput,
} from '../modules/longterm/interfaces/longterm-store.interface.js';
import type { ConformanceHooks } from './conformance-hooks.js';

/** What the search and expiry cases need of the suite. */
export interface SearchConformanceContext {
  /** The suite's primary instance. */
  store(): Promise<LongtermMemoryStore>;
  /** A fresh entity id, erased when the suite ends. */
  entity(label: string): string;
  /** A save input with the suite's defaults. */
  row(
    entityId: string,
    key: string,
    value: unknown,
    seq: number,
    extra?: Partial<LongtermSaveInput>,
  ): LongtermSaveInput;
  /** The suite's clock, which the store under test reads. */
  time: { now(): number; advance(ms: number): void };
}

/**
 * The prefix-search and expiry cases of the `LongtermMemoryStore` conformance suite: literal,
 * case-sensitive prefixes in code-point order within a limit, and expired rows hidden at once,
 * replaceable, swept, and never hiding the live rows behind them.
 */
export function registerSearchAndExpiryConformance(
  hooks: ConformanceHooks,
  { store, entity, row, time }: SearchConformanceContext,
): void {
  const { it, expect } = hooks;
  it('searches one entity by literal prefix, in code-point order, bounded by limit', async () => {
    const s = await store();
    const [a, b] = [entity('search-a'), entity('search-b')];
    await s.saveMany([
      row(a, 'case/2', 2, 1),
      row(a, 'note/1', 'n', 1),
      row(a, 'case/1', 1, 1),
      row(a, 'case/3', 3, 1),
    ]);
    await s.save(row(b, 'case/9', 9, 1));
    expect((await s.search(a, 'case/', 2)).map((r) => r.key)).toEqual(['case/1', 'case/2']);
    expect((await s.search(a, 'case/', 10)).map((r) => r.key)).toEqual([
      'case/1',
      'case/2',
      'case/3',
    ]);
    expect((await s.search(a, '', 3)).map((r) => r.key)).toEqual(['case/1', 'case/2', 'case/3']);
    expect((await s.search(b, 'case/', 10)).map((r) => r.key)).toEqual(['case/9']);
  });

  it('takes no character of the prefix as a wildcard, and is case-sensitive', async () => {
    const s = await store();
    const e = entity('literal');
    const keys = ['a%b', 'axb', 'a_b', 'a\\b', 'a*b', 'a?b', 'a[b]', 'aXb', 'CASE/1', 'case/1'];
    await s.saveMany(keys.map((key, i) => row(e, key, i, 1)));
    for (const prefix of ['a%', 'a_', 'a\\', 'a*', 'a?', 'a[']) {
      expect((await s.search(e, prefix, 10)).map((r) => r.key)).toEqual(
        keys.filter((k) => k.startsWith(prefix)),
      );
    }
    expect((await s.search(e, 'case/', 10)).map((r) => r.key)).toEqual(['case/1']);
    expect((await s.search(e, 'CASE/', 10)).map((r) => r.key)).toEqual(['CASE/1']);
  });

  it('orders unicode keys by code point, beyond U+FFFF too', async () => {
    const s = await store();
    const e = entity('unicode');
    const keys = [
      'k/\u{1F600}',
      'k/\uFFFF',
      'k/z',
      'k/\u00E9',
      'k/Z',
      'k/\u{10FFFF}',
      'k/\uD7FF',
      'k/\uE000',
    ];
    await s.saveMany(keys.map((key) => row(e, key, key, 1)));
    expect((await s.search(e, 'k/', 100)).map((r) => r.key)).toEqual([
      'k/Z',
      'k/z',
      'k/\u00E9',
      'k/\uD7FF',
      'k/\uE000',
      'k/\uFFFF',
      'k/\u{1F600}',
      'k/\u{10FFFF}',
    ]);
    expect((await s.search(e, 'k/\u{1F600}', 10)).map((r) => r.value)).toEqual(['k/\u{1F600}']);
  });

  it('hides expired rows at once, lets a save replace them, and sweeps them', async () => {
    const s = await store();
    const e = entity('ttl');
    await s.save(row(e, 'short', 'lives', 5, { updatedAt: time.now(), ttlMs: 1_000 }));
    await s.save(row(e, 'long', 'stays', 1, { updatedAt: time.now() }));
    expect((await s.search(e, '', 10)).map((r) => r.key)).toEqual(['long', 'short']);
    time.advance(1_000);
    expect(await s.load(e, 'short')).toBeNull();
    expect((await s.search(e, '', 10)).map((r) => r.key)).toEqual(['long']);
    expect(await s.sweepExpired(1_000)).toBeGreaterThan(0);
    expect(await s.load(e, 'long')).toMatchObject({ value: 'stays' });
    await s.save(row(e, 'short2', 'x', 9, { updatedAt: time.now(), ttlMs: 10 }));
    time.advance(10);
    expect(await s.save(row(e, 'short2', 'reborn', 1, { updatedAt: time.now() }))).toEqual({
      applied: true,
    });
    expect(await s.load(e, 'short2')).toMatchObject({ value: 'reborn', seq: 1 });
  });

  it('finds the live rows behind many expired ones, whatever the limit', async () => {
    const s = await store();
    const e = entity('ttl-pages');
    const dying = Array.from({ length: 150 }, (_, i) =>
      row(e, `a/${String(i).padStart(3, '0')}`, i, 1, { updatedAt: time.now(), ttlMs: 1_000 }),
    );
    await s.saveMany([...dying, row(e, 'a/x', 'x', 1), row(e, 'a/y', 'y', 1)]);
    time.advance(1_000);
    expect((await s.search(e, 'a/', 1)).map((r) => r.key)).toEqual(['a/x']);
    expect((await s.search(e, 'a/', 2)).map((r) => r.key)).toEqual(['a/x', 'a/y']);
    expect((await s.search(e, 'a/', 50)).map((r) => r.key)).toEqual(['a/x', 'a/y']);
  });
}
