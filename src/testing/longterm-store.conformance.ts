import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../common/canonical-json.js';
import type {
  LongtermMemoryStore,
  LongtermSaveInput,
} from '../modules/longterm/interfaces/longterm-store.interface.js';
import { registerSearchAndExpiryConformance } from './longterm-search.conformance.js';
import { registerTextSearchConformance } from './longterm-text-search.conformance.js';
import { registerVectorConformance } from './longterm-vector.conformance.js';
import { registerArgumentConformance } from './longterm-arguments.conformance.js';
import { registerConcurrencyAndDurabilityConformance } from './longterm-concurrency.conformance.js';
import type { ConformanceHooks, InstanceUnderTest } from './conformance-hooks.js';

/** What a long-term backend can promise. */
export interface LongtermStoreCapabilities {
  durable: boolean;
  sharedAcrossInstances: boolean;
}

/** A clock the suite moves, passed to every store it opens (expiry is judged against it). */
export interface ConformanceClock {
  /** The suite's current time, in epoch milliseconds. */
  now(): number;
}

/** Opens a new, independent instance of the store under test, judging expiry by `clock`. */
export type LongtermStoreFactory = (
  clock: ConformanceClock,
) => Promise<InstanceUnderTest<LongtermMemoryStore>>;

/**
 * Registers the conformance suite for one `LongtermMemoryStore` backend. Every test
 * uses fresh entity ids, so it can run against a shared database; entities it wrote are erased.
 */
export function runLongtermStoreConformance(
  backendName: string,
  factory: LongtermStoreFactory,
  hooks: ConformanceHooks,
  capabilities: LongtermStoreCapabilities,
): void {
  const { describe, it, expect } = hooks;
  let time = 1_800_000_000_000;
  const clock: ConformanceClock = { now: () => time };
  const opened: Array<InstanceUnderTest<LongtermMemoryStore>> = [];
  const entities: string[] = [];
  let primary: Promise<LongtermMemoryStore> | undefined;
  const open = async () => {
    const instance = await factory(clock);
    opened.push(instance);
    return instance.subject;
  };
  const store = () => (primary ??= open());
  const entity = (label: string) => {
    const id = `conformance:${label}:${randomUUID()}`;
    entities.push(id);
    return id;
  };
  const row = (
    entityId: string,
    key: string,
    value: unknown,
    seq: number,
    extra: Partial<LongtermSaveInput> = {},
  ): LongtermSaveInput => ({
    entityId,
    key,
    value,
    seq,
    updatedAt: 1_000,
    ...extra,
  });
  hooks.afterAll?.(async () => {
    if (primary) {
      const s = await primary;
      for (const id of entities) await s.deleteEntity(id);
    }
    await Promise.all(opened.map((instance) => instance.close()));
  });

  describe(`LongtermMemoryStore conformance: ${backendName}`, () => {
    it('round-trips the full record, and answers null for an absent key', async () => {
      const s = await store();
      const e = entity('roundtrip');
      const value = { z: [1, 'two', null, { b: true, a: 1.5 }], a: 'héllo 🦄', n: null };
      expect(
        await s.save(row(e, 'profile/name', value, 7, { updatedAt: time, ttlMs: 60_000 })),
      ).toEqual({ applied: true });
      expect(await s.load(e, 'profile/name')).toEqual({
        entityId: e,
        key: 'profile/name',
        value,
        seq: 7,
        updatedAt: time,
        expiresAt: time + 60_000,
      });
      await s.save(row(e, 'plain', 'just text', 1));
      expect(await s.load(e, 'plain')).toEqual({
        entityId: e,
        key: 'plain',
        value: 'just text',
        seq: 1,
        updatedAt: 1_000,
      });
      expect(await s.load(e, 'missing')).toBeNull();
      expect(await s.load(entity('empty'), 'plain')).toBeNull();
    });

    it('stores values as canonical JSON text', async () => {
      const s = await store();
      const e = entity('canonical');
      await s.save(row(e, 'k', { b: { y: 1, x: 2 }, a: 0 }, 1));
      expect(JSON.stringify((await s.load(e, 'k'))!.value)).toBe('{"a":0,"b":{"x":2,"y":1}}');
      // Keys that name prototypes are data like any other, in either order.
      for (const text of ['{"b":1,"__proto__":{"x":1}}', '{"__proto__":{"x":1},"b":1}']) {
        await s.save(row(e, 'proto', JSON.parse(text), 2));
        const loaded = (await s.load(e, 'proto'))!.value;
        expect(JSON.stringify(loaded)).toBe('{"__proto__":{"x":1},"b":1}');
        expect(Object.getPrototypeOf(loaded)).toBe(Object.prototype);
      }
    });

    it('converges on a replayed save: both apply, the row is the same bytes', async () => {
      const s = await store();
      const e = entity('replay');
      const input = row(e, 'note', { b: 2, a: 1 }, 3);
      expect(await s.save(input)).toEqual({ applied: true });
      const first = await s.load(e, 'note');
      expect(await s.save({ ...input, value: { a: 1, b: 2 } })).toEqual({ applied: true });
      const second = await s.load(e, 'note');
      expect(second).toEqual(first);
      expect(canonicalJson(second!.value)).toBe(canonicalJson(first!.value));
    });

    it('applies by seq: absent or newer-or-equal applies, older is refused and changes nothing', async () => {
      const s = await store();
      const e = entity('seq');
      expect(await s.save(row(e, 'fresh', 'zero', 0))).toEqual({ applied: true });
      await s.save(row(e, 'k', 'five', 5));
      expect(await s.save(row(e, 'k', 'four', 4))).toEqual({ applied: false });
      expect((await s.load(e, 'k'))!.value).toBe('five');
      expect(await s.save(row(e, 'k', 'five again, other bytes', 5, { updatedAt: 2_000 }))).toEqual(
        { applied: true },
      );
      expect(await s.load(e, 'k')).toMatchObject({
        value: 'five again, other bytes',
        seq: 5,
        updatedAt: 2_000,
      });
      expect(await s.save(row(e, 'k', 'six', 6))).toEqual({ applied: true });
      expect(await s.load(e, 'k')).toMatchObject({ value: 'six', seq: 6 });
    });

    const context = {
      store,
      entity,
      row,
      time: { now: () => time, advance: (ms: number) => (time += ms) },
    };
    registerSearchAndExpiryConformance(hooks, context);
    registerTextSearchConformance(hooks, context);
    registerVectorConformance(hooks, context);
    registerArgumentConformance(hooks, context);

    it('keeps a delete tombstone that a stale save cannot undo', async () => {
      const s = await store();
      const e = entity('tombstone');
      await s.save(row(e, 'k', 'v', 3));
      expect(await s.delete(e, 'k', 2)).toEqual({ applied: false });
      expect(await s.load(e, 'k')).toMatchObject({ value: 'v' });
      expect(await s.delete(e, 'k', 5)).toEqual({ applied: true });
      expect(await s.load(e, 'k')).toBeNull();
      expect(await s.search(e, '', 10)).toEqual([]);
      expect(await s.save(row(e, 'k', 'stale', 4))).toEqual({ applied: false });
      expect(await s.load(e, 'k')).toBeNull();
      expect(await s.save(row(e, 'k', 'newer', 5))).toEqual({ applied: true });
      expect(await s.load(e, 'k')).toMatchObject({ value: 'newer', seq: 5 });
      expect(await s.delete(e, 'never-saved', 1)).toEqual({ applied: true });
      expect(await s.save(row(e, 'never-saved', 'late', 0))).toEqual({ applied: false });
    });

    it('erases one entity with deleteEntity, and only that one', async () => {
      const s = await store();
      const [a, b] = [entity('erase-a'), entity('erase-b')];
      await s.saveMany([row(a, 'x', 1, 1), row(a, 'y', 2, 1)]);
      await s.save(row(b, 'x', 3, 1));
      await s.delete(a, 'z', 9);
      await s.deleteEntity(a);
      expect(await s.search(a, '', 10)).toEqual([]);
      expect(await s.load(a, 'x')).toBeNull();
      expect(await s.save(row(a, 'z', 'fresh start', 10))).toEqual({ applied: true });
      expect(await s.search(a, '', 10)).toEqual([
        { entityId: a, key: 'z', value: 'fresh start', seq: 10, updatedAt: 1_000 },
      ]);
      expect((await s.load(b, 'x'))!.value).toBe(3);
    });

    it('keeps an erasure: a stale flush at or below the highest erased seq is refused', async () => {
      const s = await store();
      const e = entity('erase-stale');
      await s.saveMany([row(e, 'name', 'Ada', 4), row(e, 'city', 'Paris', 6)]);
      await s.delete(e, 'gone', 7);
      await s.deleteEntity(e);
      // A run that began before the erasure retries its flush afterwards: nothing comes back.
      expect(
        await s.saveMany([row(e, 'name', 'Ada', 7), row(e, 'email', 'ada@example.com', 5)]),
      ).toEqual({ applied: [false, false] });
      expect(await s.delete(e, 'city', 7)).toEqual({ applied: false });
      expect(await s.search(e, '', 10)).toEqual([]);
      // Erasing again keeps the mark (it never goes down); a later run's seq applies.
      await s.deleteEntity(e);
      expect(await s.save(row(e, 'name', 'Ada', 7))).toEqual({ applied: false });
      expect(await s.saveMany([row(e, 'name', 'Grace', 8)])).toEqual({ applied: [true] });
      expect((await s.load(e, 'name'))!.value).toBe('Grace');
      if (capabilities.sharedAcrossInstances) {
        const other = await open();
        expect(await other.save(row(e, 'city', 'Rome', 6))).toEqual({ applied: false });
      }
    });

    it('holds each entity of a mixed batch to its own erasure mark', async () => {
      const s = await store();
      const [erased, fresh] = [entity('erase-mixed-a'), entity('erase-mixed-b')];
      await s.save(row(erased, 'old', 'x', 6));
      await s.deleteEntity(erased); // its mark: 6
      expect(
        await s.saveMany([
          row(fresh, 'k1', 'b1', 3),
          row(erased, 'k1', 'a1', 6),
          row(fresh, 'k2', 'b2', 6),
          row(erased, 'k2', 'a2', 7),
          row(erased, 'k3', 'a3', 2),
        ]),
      ).toEqual({ applied: [true, false, true, true, false] });
      expect((await s.search(erased, '', 10)).map((r) => r.key)).toEqual(['k2']);
      expect((await s.search(fresh, '', 10)).map((r) => r.key)).toEqual(['k1', 'k2']);
    });

    registerConcurrencyAndDurabilityConformance(hooks, {
      ...context,
      open,
      reopen: () => factory(clock),
      capabilities,
    });
  });
}
