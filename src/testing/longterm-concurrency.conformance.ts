import type { LongtermMemoryStore } from '../modules/longterm/interfaces/longterm-store.interface.js';
import type { ConformanceHooks, InstanceUnderTest } from './conformance-hooks.js';
import type { SearchConformanceContext } from './longterm-search.conformance.js';

/** What the concurrency and durability cases need of the suite. */
export interface ConcurrencyConformanceContext extends SearchConformanceContext {
  /** Another instance over the same storage (closed when the suite ends). */
  open(): Promise<LongtermMemoryStore>;
  /** A new instance the case closes itself. */
  reopen(): Promise<InstanceUnderTest<LongtermMemoryStore>>;
  capabilities: { durable: boolean; sharedAcrossInstances: boolean };
}

/**
 * The concurrency and durability cases of the `LongtermMemoryStore` conformance suite: concurrent
 * first inserts of one key, the highest seq winning whatever the arrival order (across instances
 * when the backend is shared), and records seen by a new instance when it is durable.
 */
export function registerConcurrencyAndDurabilityConformance(
  hooks: ConformanceHooks,
  { store, open, reopen, entity, row, capabilities }: ConcurrencyConformanceContext,
): void {
  const { describe, it, expect } = hooks;
  describe('concurrency', () => {
    const pool = async () =>
      capabilities.sharedAcrossInstances ? [await store(), await open()] : [await store()];

    it('takes concurrent first inserts of one key without error', async () => {
      const stores = await pool();
      const e = entity('first-inserts');
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          stores[i % stores.length]!.save(row(e, 'k', `w${i}`, 1)),
        ),
      );
      expect(results.every((r) => r.applied)).toBe(true);
      expect(await stores[0]!.load(e, 'k')).toMatchObject({ seq: 1 });
    });

    it('lets the highest seq win whatever the arrival order', async () => {
      const stores = await pool();
      for (let round = 0; round < 3; round += 1) {
        const e = entity(`highest-${round}`);
        const seqs = [3, 9, 1, 7, 9, 2, 5, 8].sort(() => Math.random() - 0.5);
        await Promise.all(
          seqs.map((seq, i) => stores[i % stores.length]!.save(row(e, 'k', `seq ${seq}`, seq))),
        );
        expect(await stores[0]!.load(e, 'k')).toMatchObject({ seq: 9, value: 'seq 9' });
      }
    });
  });

  if (capabilities.durable) {
    it('is durable: a new instance sees the records', async () => {
      const e = entity('durable');
      const writer = await reopen();
      try {
        await writer.subject.save(row(e, 'k', 'kept', 1));
      } finally {
        await writer.close();
      }
      expect((await (await open()).load(e, 'k'))!.value).toBe('kept');
    });
  }
}
