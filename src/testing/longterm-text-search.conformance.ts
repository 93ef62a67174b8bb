import { InvalidArgumentError } from '../common/errors/invalid-argument.error.js';
import type { TextSearchHit } from '../modules/longterm/interfaces/longterm-store.interface.js';
import type { ConformanceHooks } from './conformance-hooks.js';
import { rejectionOf } from './conformance-hooks.js';
import type { SearchConformanceContext } from './longterm-search.conformance.js';

const keys = (hits: TextSearchHit[]) => hits.map((hit) => hit.record.key);

/**
 * The text-search cases of the `LongtermMemoryStore` conformance suite: words matched case- and
 * accent-insensitively in a string value or a JSON value's string leaves, best match first, within
 * one entity, filtered by key prefix and update time; and the index governed by the same rules as the
 * records: a stale save never replaces a newer text, and a delete, an erasure or an expiry hides a
 * record from searches at once.
 */
export function registerTextSearchConformance(
  hooks: ConformanceHooks,
  { store, entity, row, time }: SearchConformanceContext,
): void {
  const { it, expect } = hooks;

  it('finds records by their words, any case or accent, best match first, in one entity', async () => {
    const s = await store();
    const [e, other] = [entity('text'), entity('text-other')];
    await s.saveMany([
      row(e, 'note/1', 'Caroline went to the LGBTQ support group on Monday', 1),
      row(e, 'note/2', 'Melanie painted a sunrise over the lake', 1),
      row(e, 'note/3', { topic: 'Crème brûlée', tags: ['Dessert', 'naïve café'], rating: 5 }, 1),
      row(e, 'note/4', 'The support group met again; Caroline spoke at the group', 1),
      row(e, 'note/5', 'ПРИВЕТ мир: Müller wrote x1 in 2024', 1),
      row(e, 'note/6', 'build 1e5x, commit 3e7a9, then abcабв', 1),
    ]);
    await s.save(row(other, 'note/1', 'Caroline support group', 1));
    const hits = await s.searchText(e, 'caroline SUPPORT group');
    expect(keys(hits).sort()).toEqual(['note/1', 'note/4']);
    expect(hits.every((hit) => hit.record.entityId === e && hit.score > 0)).toBe(true);
    expect(hits[0]!.score >= hits[1]!.score).toBe(true);
    expect(hits.find((hit) => hit.record.key === 'note/1')!.record).toEqual(
      await s.load(e, 'note/1'),
    );
    expect(keys(await s.searchText(e, 'creme BRULEE'))).toEqual(['note/3']);
    expect(keys(await s.searchText(e, 'Naive Cafe'))).toEqual(['note/3']);
    expect(keys(await s.searchText(e, 'привет MULLER'))).toEqual(['note/5']);
    expect(keys(await s.searchText(e, '2024'))).toEqual(['note/5']);
    expect(keys(await s.searchText(e, 'X1'))).toEqual(['note/5']);
    // Words are the package's on every backend: no engine splits them again.
    expect(keys(await s.searchText(e, '1e5x'))).toEqual(['note/6']);
    expect(keys(await s.searchText(e, '3E7A9'))).toEqual(['note/6']);
    expect(keys(await s.searchText(e, 'abcабв'))).toEqual(['note/6']);
    expect(await s.searchText(e, '1e5 abc')).toEqual([]);
    // One- and two-letter words and stop words count like any other.
    expect(keys(await s.searchText(e, 'a'))).toEqual(['note/2']);
    expect(keys(await s.searchText(e, 'to'))).toEqual(['note/1']);
    // Only what is stored is indexed: a toJSON's output, not the object it came from.
    await s.save(row(e, 'shown', { hidden: 's3cret', toJSON: () => ({ note: 'public' }) }, 1));
    expect(await s.searchText(e, 's3cret')).toEqual([]);
    expect(keys(await s.searchText(e, 'public'))).toEqual(['shown']);
    // Property names and numbers of a JSON value are not its text.
    expect(await s.searchText(e, 'rating topic 5')).toEqual([]);
    expect(await s.searchText(e, 'sunset')).toEqual([]);
    expect(keys(await s.searchText(other, 'caroline'))).toEqual(['note/1']);
  });

  it('ranks the record holding more of the query first', async () => {
    const s = await store();
    const e = entity('rank');
    await s.saveMany([
      // Records of one length, so that only the words they share with the query set them apart.
      row(e, 'a', 'kayak trip friends river', 1),
      row(e, 'b', 'kayak lessons summer time', 1),
      row(e, 'c', 'river cleanup with friends', 1),
      row(e, 'd', 'unrelated words only here', 1),
    ]);
    const hits = await s.searchText(e, 'kayak river friends');
    expect(keys(hits)[0]).toBe('a');
    expect(keys(hits).sort()).toEqual(['a', 'b', 'c']);
  });

  it('finds other forms of a word, leaves question words out, and ranks the exact form first', async () => {
    const s = await store();
    const e = entity('stems');
    await s.saveMany([
      row(e, 'works', 'Ada works at the Lisbon aquarium', 1),
      row(e, 'painted', 'She painted the kitchen', 1),
      row(e, 'moved', 'Ada moved to Porto', 1),
      row(e, 'moving', 'Moving boxes are heavy', 1),
    ]);
    // "where", "does" and "she" are not searched by: only "work", which "works" holds as a stem.
    expect(keys(await s.searchText(e, 'Where does she work?'))).toEqual(['works']);
    expect(keys(await s.searchText(e, 'painting'))).toEqual(['painted']);
    // Both hold "move" as a stem; the one holding "moved" itself ranks first.
    expect(keys(await s.searchText(e, 'moved'))).toEqual(['moved', 'moving']);
    expect(keys(await s.searchText(e, 'moving'))).toEqual(['moving', 'moved']);
    // A query of question words alone searches them all.
    expect(keys(await s.searchText(e, 'She?'))).toEqual(['painted']);
  });

  it('filters by limit, literal key prefix and update time', async () => {
    const s = await store();
    const e = entity('text-filter');
    await s.saveMany(
      Array.from({ length: 30 }, (_, i) =>
        row(
          e,
          `${i % 2 === 0 ? 'even' : 'odd'}/${String(i).padStart(2, '0')}`,
          `shared word ${i}`,
          1,
          {
            updatedAt: 10_000 + i,
          },
        ),
      ),
    );
    await s.save(row(e, 'e%ven/x', 'shared', 1));
    expect(await s.searchText(e, 'shared')).toHaveLength(10);
    expect(await s.searchText(e, 'shared', { limit: 3 })).toHaveLength(3);
    expect(await s.searchText(e, 'shared', { limit: 100 })).toHaveLength(31);
    const odd = await s.searchText(e, 'shared', { prefix: 'odd/', limit: 100 });
    expect(keys(odd).sort()).toEqual(
      Array.from({ length: 15 }, (_, i) => `odd/${String(i * 2 + 1).padStart(2, '0')}`),
    );
    expect(keys(await s.searchText(e, 'shared', { prefix: 'e%', limit: 100 }))).toEqual([
      'e%ven/x',
    ]);
    const window = await s.searchText(e, 'shared', {
      updatedFrom: 10_010,
      updatedTo: 10_013,
      limit: 100,
    });
    expect(keys(window).sort()).toEqual(['even/10', 'even/12', 'odd/11']);
    expect(keys(await s.searchText(e, 'shared 7', { prefix: 'odd/' }))[0]).toBe('odd/07');
  });

  it('indexes only what the seq guard lets through, and replaces the text with the value', async () => {
    const s = await store();
    const e = entity('text-guard');
    await s.save(row(e, 'k', 'newer lighthouse', 5));
    expect(await s.save(row(e, 'k', 'stale windmill', 4))).toEqual({ applied: false });
    expect(await s.searchText(e, 'windmill')).toEqual([]);
    expect(keys(await s.searchText(e, 'lighthouse'))).toEqual(['k']);
    await s.save(row(e, 'k', 'replaced by a harbour', 6));
    expect(await s.searchText(e, 'lighthouse')).toEqual([]);
    expect(keys(await s.searchText(e, 'harbour'))).toEqual(['k']);
    const { applied } = await s.saveMany([
      row(e, 'k', 'stale again windmill', 5),
      row(e, 'j', 'fresh windmill', 1),
    ]);
    expect(applied).toEqual([false, true]);
    expect(keys(await s.searchText(e, 'windmill'))).toEqual(['j']);
  });

  it('finds a record by the words of what it holds now, after changes and back', async () => {
    const s = await store();
    const e = entity('text-back');
    // Each text saved more than once: the later saves may be answered from what a store remembers.
    const texts = ['quiet lighthouse', 'quiet lighthouse', 'busy harbour', 'busy harbour'];
    for (const [i, text] of [...texts, 'quiet lighthouse', 'quiet lighthouse'].entries()) {
      await s.save(row(e, 'k', text, i + 1));
      const now = text.includes('harbour') ? 'harbour' : 'lighthouse';
      const before = now === 'harbour' ? 'lighthouse' : 'harbour';
      expect(keys(await s.searchText(e, now))).toEqual(['k']);
      expect(await s.searchText(e, before)).toEqual([]);
    }
  });

  it('ranks by how often a word occurs, after re-saves that change only that', async () => {
    const s = await store();
    const e = entity('text-counts');
    // One length and the same words: only how often "kayak" and "river" occur sets them apart.
    await s.saveMany([
      row(e, 'x', 'kayak kayak kayak river', 1),
      row(e, 'y', 'kayak river river river', 1),
      row(e, 'z', 'unrelated lake shore words', 1),
    ]);
    expect(keys(await s.searchText(e, 'kayak'))).toEqual(['x', 'y']);
    // The counts swapped, the words kept; one record saved again as it was.
    await s.saveMany([
      row(e, 'x', 'kayak river river river', 2),
      row(e, 'y', 'kayak kayak kayak river', 2),
      row(e, 'z', 'unrelated lake shore words', 2),
    ]);
    expect(keys(await s.searchText(e, 'kayak'))).toEqual(['y', 'x']);
    expect(keys(await s.searchText(e, 'river'))).toEqual(['x', 'y']);
    expect(keys(await s.searchText(e, 'shore'))).toEqual(['z']);
  });

  it('forgets a record at once when it is deleted, its entity erased, or it expires', async () => {
    const s = await store();
    const e = entity('text-erase');
    await s.saveMany([
      row(e, 'gone', 'orchard apples', 1),
      row(e, 'kept', 'orchard pears', 1),
      row(e, 'brief', 'orchard plums', 1, { updatedAt: time.now(), ttlMs: 1_000 }),
    ]);
    expect(keys(await s.searchText(e, 'orchard')).sort()).toEqual(['brief', 'gone', 'kept']);
    await s.delete(e, 'gone', 2);
    expect(await s.save(row(e, 'gone', 'orchard apples', 1))).toEqual({ applied: false });
    expect(await s.searchText(e, 'apples')).toEqual([]);
    time.advance(1_000);
    expect(keys(await s.searchText(e, 'orchard'))).toEqual(['kept']);
    await s.sweepExpired(1_000);
    expect(await s.searchText(e, 'plums')).toEqual([]);
    await s.save(row(e, 'brief', 'orchard plums again', 3, { updatedAt: time.now() }));
    expect(keys(await s.searchText(e, 'plums'))).toEqual(['brief']);
    await s.deleteEntity(e);
    expect(await s.searchText(e, 'orchard pears plums')).toEqual([]);
    // A stale flush of a run that began before the erasure indexes nothing.
    expect(await s.save(row(e, 'late', 'orchard cherries', 3))).toEqual({ applied: false });
    expect(await s.searchText(e, 'cherries')).toEqual([]);
    await s.save(row(e, 'after', 'orchard figs', 1_000_000));
    expect(keys(await s.searchText(e, 'orchard'))).toEqual(['after']);
  });

  it('finds a word among many records, and answers [] for an unknown entity', async () => {
    const s = await store();
    const e = entity('text-many');
    await s.saveMany(
      Array.from({ length: 300 }, (_, i) =>
        row(e, `m/${i}`, `common filler words ${i % 7 === 0 ? 'sevenfold' : 'plain'}`, 1),
      ),
    );
    await s.save(row(e, 'needle', 'common filler with a zebra', 1));
    expect(keys(await s.searchText(e, 'zebra'))).toEqual(['needle']);
    expect(keys(await s.searchText(e, 'zebra sevenfold', { limit: 1 }))).toEqual(['needle']);
    expect(await s.searchText(e, 'sevenfold', { limit: 100 })).toHaveLength(43);
    expect(await s.searchText(entity('text-none'), 'zebra')).toEqual([]);
  });

  it('refuses a bad query or option before any I/O, naming it', async () => {
    const s = await store();
    const e = entity('text-invalid');
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => s.searchText(e, ''), 'query'],
      [() => s.searchText(e, ' ?! — '), 'query'],
      [() => s.searchText(e, 42 as unknown as string), 'query'],
      [() => s.searchText(e, 'x'.repeat(2_001)), 'query'],
      [() => s.searchText(e, 'ok', { limit: 0 }), 'limit'],
      [() => s.searchText(e, 'ok', { limit: 101 }), 'limit'],
      [() => s.searchText(e, 'ok', { limit: 2.5 }), 'limit'],
      [() => s.searchText(e, 'ok', { prefix: 'k\uD800' }), 'prefix'],
      [() => s.searchText(e, 'ok', { updatedFrom: -1 }), 'updatedFrom'],
      [() => s.searchText(e, 'ok', { updatedTo: 1.5 }), 'updatedTo'],
      [() => s.searchText('', 'ok'), 'entityId'],
    ];
    for (const [call, argument] of cases) {
      const error = await rejectionOf(call());
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
  });
}
