import { InvalidArgumentError } from '../common/errors/invalid-argument.error.js';
import { type ConformanceHooks, rejectionOf } from './conformance-hooks.js';
import type { SearchConformanceContext } from './longterm-search.conformance.js';

/**
 * The argument and batch cases of the `LongtermMemoryStore` conformance suite: every bad argument
 * refused before any I/O, named as the caller wrote it (`records[1].key`), and `saveMany`'s
 * verdict per row, across entities, with a key twice in one entity refused before any write.
 */
export function registerArgumentConformance(
  hooks: ConformanceHooks,
  { store, entity, row }: SearchConformanceContext,
): void {
  const { it, expect } = hooks;
  it('rejects invalid arguments before any I/O, naming them', async () => {
    const s = await store();
    const e = entity('invalid');
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => s.save(row(e, '', 1, 1)), 'record.key'],
      [() => s.save(row(e, 'k', 1, -1)), 'record.seq'],
      [() => s.save(row(e, 'k', 1, 1.5)), 'record.seq'],
      [() => s.save(row('', 'k', 1, 1)), 'record.entityId'],
      [() => s.save(row(e, 'x'.repeat(513), 1, 1)), 'record.key'],
      [() => s.save(row(e, 'k', undefined, 1)), 'record.value'],
      [() => s.save(row(e, 'k', Number.NaN, 1)), 'record.value'],
      [() => s.save(row(e, 'k', 1, 1, { ttlMs: 0 })), 'record.ttlMs'],
      [() => s.search(e, 'a', 0), 'limit'],
      [() => s.search(e, 'a', -3), 'limit'],
      [() => s.search(e, 'a', 1_001), 'limit'],
      [() => s.load(e, 'k\u0000'), 'key'],
      [() => s.load(e, 'k\uDC00'), 'key'],
      [() => s.save(row('e\uD800', 'k', 1, 1)), 'record.entityId'],
      [() => s.search(e, 'k\uD800', 5), 'prefix'],
      [() => s.delete(e, 'k', -1), 'seq'],
      [() => s.saveMany([row(e, 'ok', 1, 1), row(e, '', 1, 1)]), 'records[1].key'],
      [() => s.saveMany([row(e, 'ok', 1, 1), row('', 'k', 1, 1)]), 'records[1].entityId'],
      [() => s.saveMany([row(e, 'ok', 1, 1), row(e, 'ok', 2, 2)]), 'records[1].key'],
      [
        () => s.saveMany([row(e, 'a', 1, 1), row(`${e}-2`, 'a', 1, 1), row(e, 'a', 1, 1)]),
        'records[2].key',
      ],
    ];
    for (const [call, argument] of cases) {
      const error = await rejectionOf(call());
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
    expect(await s.search(e, '', 10)).toEqual([]);
  });

  it('saves a batch in one call, with a verdict per row; a key twice is refused before any write', async () => {
    const s = await store();
    const e = entity('batch');
    await s.save(row(e, 'b', 'kept', 9));
    const { applied } = await s.saveMany([
      row(e, 'a', 1, 1),
      row(e, 'b', 'stale', 2),
      row(e, 'c', 3, 3),
    ]);
    expect(applied).toEqual([true, false, true]);
    expect((await s.search(e, '', 10)).map((r) => [r.key, r.value])).toEqual([
      ['a', 1],
      ['b', 'kept'],
      ['c', 3],
    ]);
    expect(await rejectionOf(s.saveMany([row(e, 'd', 1, 1), row(e, 'd', 2, 1)]))).toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(await s.load(e, 'd')).toBeNull();
    expect(await s.saveMany([])).toEqual({ applied: [] });
    // One key in two entities, their rows interleaved, is two records; each verdict is its row's.
    const other = entity('batch-other');
    expect(
      await s.saveMany([
        row(e, 'x', 'e', 1),
        row(other, 'x', 'other', 1),
        row(e, 'b', 'stale again', 3),
        row(e, 'y', 'e', 1),
      ]),
    ).toEqual({ applied: [true, true, false, true] });
    expect((await s.load(other, 'x'))!.value).toBe('other');
    expect((await s.search(e, '', 10)).map((r) => r.key)).toEqual(['a', 'b', 'c', 'x', 'y']);
  });
}
