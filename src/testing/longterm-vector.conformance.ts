import { InvalidArgumentError } from '../common/errors/invalid-argument.error.js';
import type {
  LongtermMemoryStore,
  TextSearchHit,
} from '../modules/longterm/interfaces/longterm-store.interface.js';
import type { ConformanceHooks } from './conformance-hooks.js';
import { rejectionOf } from './conformance-hooks.js';
import type { SearchConformanceContext } from './longterm-search.conformance.js';

const keys = (hits: TextSearchHit[]) => hits.map((hit) => hit.record.key);
const MODEL = 'conformance-model';
const embedding = (vector: number[], model = MODEL) => ({ embedding: { model, vector } });

/** Every key `unembedded` lists for `model`, page by page (bounded), among `entities`. */
async function pendingKeys(
  s: LongtermMemoryStore,
  model: string,
  entities: string[],
): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 2_000; page += 1) {
    const result = await s.unembedded(model, 1_000, cursor);
    for (const record of result.records)
      if (entities.includes(record.entityId)) found.push(`${record.entityId}|${record.key}`);
    cursor = result.cursor;
    if (cursor === undefined) return found.sort();
  }
  throw new Error('unembedded never ended');
}

/**
 * The vector cases of the `LongtermMemoryStore` conformance suite: vectors stored with their rows
 * (unit length, by model), found by cosine similarity within one entity and the filters, governed by
 * the seq guard, deletes, erasure and expiry like the rows; the background embedding's listing of
 * rows without a vector of a model, and its compare-and-set writes.
 */
export function registerVectorConformance(
  hooks: ConformanceHooks,
  { store, entity, row, time }: SearchConformanceContext,
): void {
  const { it, expect } = hooks;

  it('finds records by cosine similarity of their vectors, one model, one entity', async () => {
    const s = await store();
    const [e, other] = [entity('vector'), entity('vector-other')];
    await s.saveMany([
      row(e, 'north', 'n', 1, embedding([0, 10])),
      row(e, 'north-east', 'ne', 1, embedding([1, 1])),
      row(e, 'east', 'e', 1, embedding([3, 0])),
      row(e, 'south', 's', 1, embedding([0, -2])),
      row(e, 'other-model', 'x', 1, embedding([0, 1], 'another-model')),
      row(e, 'no-vector', 'none', 1),
    ]);
    await s.save(row(other, 'north', 'n', 1, embedding([0, 1])));
    const hits = await s.searchVector(e, [0, 0.5], { model: MODEL });
    expect(keys(hits)).toEqual(['north', 'north-east', 'east', 'south']);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 5);
    expect(hits[3]!.score).toBeCloseTo(-1, 5);
    expect(hits[0]!.record).toEqual(await s.load(e, 'north'));
    expect(keys(await s.searchVector(e, [1, 0], { model: MODEL, limit: 2 }))).toEqual([
      'east',
      'north-east',
    ]);
    expect(keys(await s.searchVector(e, [1, 0], { model: MODEL, prefix: 'north' }))).toEqual([
      'north-east',
      'north',
    ]);
    expect(keys(await s.searchVector(e, [0, 1], { model: 'another-model' }))).toEqual([
      'other-model',
    ]);
    // A vector of another dimension is not comparable: it finds none of them.
    expect(await s.searchVector(e, [0, 1, 0], { model: MODEL })).toEqual([]);
    expect(keys(await s.searchVector(other, [0, 1], { model: MODEL }))).toEqual(['north']);
  });

  it('keeps a vector only with the value it was made for', async () => {
    const s = await store();
    const e = entity('vector-guard');
    await s.save(row(e, 'k', 'newer', 5, embedding([1, 0])));
    expect(await s.save(row(e, 'k', 'stale', 4, embedding([0, 1])))).toEqual({ applied: false });
    expect(keys(await s.searchVector(e, [1, 0], { model: MODEL }))).toEqual(['k']);
    expect((await s.searchVector(e, [0, 1], { model: MODEL }))[0]!.score).toBeCloseTo(0, 5);
    // A new value without a vector drops the old vector: it was made for the old value.
    await s.save(row(e, 'k', 'newest', 6));
    expect(await s.searchVector(e, [1, 0], { model: MODEL })).toEqual([]);
  });

  it('forgets vectors at once on delete, erasure and expiry', async () => {
    const s = await store();
    const e = entity('vector-erase');
    await s.saveMany([
      row(e, 'gone', 'g', 1, embedding([1, 0])),
      row(e, 'kept', 'k', 1, embedding([1, 0.1])),
      row(e, 'brief', 'b', 1, { ...embedding([1, 0.2]), updatedAt: time.now(), ttlMs: 1_000 }),
    ]);
    await s.delete(e, 'gone', 2);
    time.advance(1_000);
    expect(keys(await s.searchVector(e, [1, 0], { model: MODEL }))).toEqual(['kept']);
    await s.sweepExpired(1_000);
    await s.deleteEntity(e);
    expect(await s.searchVector(e, [1, 0], { model: MODEL })).toEqual([]);
    expect(await s.save(row(e, 'late', 'l', 1, embedding([1, 0])))).toEqual({ applied: false });
    expect(await s.searchVector(e, [1, 0], { model: MODEL })).toEqual([]);
  });

  it('lists live records without a vector of a model, and stores vectors only for the seq and value they saw', async () => {
    const s = await store();
    const [a, b] = [entity('unembedded-a'), entity('unembedded-b')];
    const model = `pending-${a}`;
    await s.saveMany([
      row(a, 'has', 'h', 1, embedding([1, 0], model)),
      row(a, 'old-model', 'o', 1, embedding([1, 0], 'older-model')),
      row(a, 'none', 'n', 1),
      row(a, 'rewritten', 'first', 1),
      row(a, 'brief', 'b', 1, { updatedAt: time.now(), ttlMs: 1_000 }),
      row(b, 'none', { text: 'value' }, 3),
    ]);
    await s.delete(a, 'deleted', 1);
    time.advance(1_000);
    expect(await pendingKeys(s, model, [a, b])).toEqual(
      [`${a}|none`, `${a}|old-model`, `${a}|rewritten`, `${b}|none`].sort(),
    );
    // Rewritten at the same seq after the vector's text was read: that vector is not its.
    await s.save(row(a, 'rewritten', 'second', 1));
    expect(
      await s.setEmbeddings([
        { entityId: a, key: 'none', seq: 1, value: 'n', model, vector: [0, 1] },
        { entityId: a, key: 'old-model', seq: 7, value: 'o', model, vector: [0, 1] }, // not its seq
        { entityId: b, key: 'none', seq: 3, value: { text: 'value' }, model, vector: [] }, // no text
        { entityId: a, key: 'deleted', seq: 1, value: 'd', model, vector: [0, 1] }, // a tombstone
        { entityId: a, key: 'absent', seq: 1, value: 'x', model, vector: [0, 1] },
        { entityId: a, key: 'rewritten', seq: 1, value: 'first', model, vector: [0, 1] },
      ]),
    ).toEqual({ applied: [true, false, true, false, false, false] });
    expect(await pendingKeys(s, model, [a, b])).toEqual([`${a}|old-model`, `${a}|rewritten`]);
    expect(keys(await s.searchVector(a, [0, 1], { model }))).toEqual(['none', 'has']);
    expect(await s.searchVector(b, [0, 1], { model })).toEqual([]);
  });

  it('refuses a bad vector, model or cursor before any I/O, naming it', async () => {
    const s = await store();
    const e = entity('vector-invalid');
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => s.save(row(e, 'k', 1, 1, embedding([Number.NaN]))), 'record.embedding.vector[0]'],
      [() => s.save(row(e, 'k', 1, 1, embedding([0, 0]))), 'record.embedding.vector'],
      [
        () => s.save(row(e, 'k', 1, 1, embedding(new Array(4_097).fill(1)))),
        'record.embedding.vector',
      ],
      [() => s.save(row(e, 'k', 1, 1, embedding([1], ''))), 'record.embedding.model'],
      [() => s.searchVector(e, [], { model: MODEL }), 'query.vector'],
      [() => s.searchVector(e, [1], { model: '' }), 'query.model'],
      [() => s.searchVector(e, [1], { model: MODEL, limit: 0 }), 'limit'],
      [() => s.unembedded('', 10), 'model'],
      [() => s.unembedded(MODEL, 0), 'limit'],
      [() => s.unembedded(MODEL, 10, 'not-a-cursor-we-gave'), 'cursor'],
      [
        () =>
          s.setEmbeddings([
            { entityId: e, key: 'k', seq: -1, value: 1, model: MODEL, vector: [1] },
          ]),
        'updates[0].seq',
      ],
    ];
    for (const [call, argument] of cases) {
      const error = await rejectionOf(call());
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).argument).toBe(argument);
    }
  });
}
