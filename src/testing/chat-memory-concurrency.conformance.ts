import { ConversationVersionConflictError } from '../modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ConformanceHooks } from './conformance-hooks.js';
import { ids, texts } from './conformance-messages.js';

const WRITERS = 8;
const MESSAGES_PER_WRITER = 50;

/** What the concurrency cases need of the suite: its stores and its ids. */
export interface ConcurrencyConformanceContext {
  /** The suite's primary instance. */
  store(): Promise<ChatMemoryStore>;
  /** A new, independent instance. */
  open(): Promise<ChatMemoryStore>;
  /** A fresh conversation id, cleared when the suite ends. */
  newId(label: string): string;
  /** Independent instances share one conversation space (write from two of them). */
  sharedAcrossInstances: boolean;
}

/**
 * The races of the `ChatMemoryStore` conformance suite: a total order under concurrent writers,
 * exactly one winner among writers with the same `expectedVersion`, and a batch retried by several
 * writers at once stored once.
 */
export function registerConcurrencyConformance(
  hooks: ConformanceHooks,
  { store, open, newId, sharedAcrossInstances }: ConcurrencyConformanceContext,
): void {
  const { describe, it, expect } = hooks;
  describe('concurrency', () => {
    const instances = async (): Promise<ChatMemoryStore[]> =>
      sharedAcrossInstances ? [await store(), await open()] : [await store()];

    it(`keeps a total order under ${WRITERS} concurrent writers × ${MESSAGES_PER_WRITER} messages`, async () => {
      const pool = await instances();
      const c = newId('race');
      const versionsByWriter = await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          const s = pool[writer % pool.length]!;
          const versions: number[] = [];
          for (let i = 0; i < MESSAGES_PER_WRITER; i += 1) {
            versions.push(
              (await s.add(c, [{ id: `w${writer}-${i}`, role: 'user', content: `${writer}:${i}` }]))
                .version,
            );
          }
          return versions;
        }),
      );
      const stored = await pool[0]!.get(c);
      expect(stored).toHaveLength(WRITERS * MESSAGES_PER_WRITER);
      expect(new Set(stored.map((m) => m.id)).size).toBe(WRITERS * MESSAGES_PER_WRITER);
      for (let writer = 0; writer < WRITERS; writer += 1) {
        const own = stored.filter((m) => m.id.startsWith(`w${writer}-`)).map((m) => m.content);
        expect(own).toEqual(
          Array.from({ length: MESSAGES_PER_WRITER }, (_, i) => `${writer}:${i}`),
        );
        const versions = versionsByWriter[writer]!;
        expect(versions.every((v, i) => i === 0 || v > versions[i - 1]!)).toBe(true);
      }
      const allVersions = versionsByWriter.flat().sort((x, y) => x - y);
      expect(allVersions).toEqual(
        Array.from({ length: WRITERS * MESSAGES_PER_WRITER }, (_, i) => i + 1),
      );
      stored.forEach((message, index) => {
        const [writer, i] = (message.content as string).split(':').map(Number);
        expect(versionsByWriter[writer!]![i!]).toBe(index + 1);
      });
    }, 120_000);

    it('lets exactly one of several writers with the same expectedVersion win', async () => {
      const pool = await instances();
      const c = newId('cas');
      await pool[0]!.add(c, texts('seed'));
      const outcomes = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, writer) =>
          pool[writer % pool.length]!.add(c, ids(`t${writer}-a`, `t${writer}-b`), {
            expectedVersion: 1,
          }),
        ),
      );
      const winners = outcomes.filter((o) => o.status === 'fulfilled');
      const losers = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(winners).toHaveLength(1);
      expect(losers.every((o) => o.reason instanceof ConversationVersionConflictError)).toBe(true);
      const stored = await pool[0]!.get(c);
      expect(stored).toHaveLength(3);
      expect(stored[1]!.id.slice(0, -2)).toBe(stored[2]!.id.slice(0, -2));
    }, 60_000);

    it('gives each of many concurrent writers its own outcome (new, duplicate, stale, stored)', async () => {
      const pool = await instances();
      const c = newId('mixed');
      await pool[0]!.add(c, ids('seed'));
      const kinds = ['new', 'dup', 'stale', 'stored'] as const;
      const calls = Array.from({ length: 48 }, (_, i) => ({ i, kind: kinds[i % 4]! }));
      const outcomes = await Promise.allSettled(
        calls.map(({ i, kind }) => {
          const s = pool[i % pool.length]!;
          if (kind === 'new') return s.add(c, ids(`n${i}`, `n${i}b`));
          if (kind === 'dup') return s.add(c, ids('dup'));
          // Behind the seed: a conflict for a new id, a no-op for one already stored.
          if (kind === 'stale') return s.add(c, ids(`s${i}`), { expectedVersion: 0 });
          return s.add(c, ids('seed'), { expectedVersion: 0 });
        }),
      );
      const stored = (await pool[0]!.get(c)).map((m) => m.id);
      expect(stored).toHaveLength(2 + 2 * (calls.length / 4));
      expect(new Set(stored).size).toBe(stored.length);
      expect(stored[0]).toBe('seed');
      calls.forEach(({ i, kind }) => {
        const outcome = outcomes[i]!;
        if (kind === 'stale') {
          expect(outcome.status).toBe('rejected');
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(
            ConversationVersionConflictError,
          );
          expect(stored.includes(`s${i}`)).toBe(false);
          return;
        }
        expect(outcome.status).toBe('fulfilled');
        const { version } = (outcome as PromiseFulfilledResult<{ version: number }>).value;
        // Each writer's version covers its own messages; a new batch ends exactly there.
        if (kind === 'new') expect(stored.slice(version - 2, version)).toEqual([`n${i}`, `n${i}b`]);
        if (kind === 'dup') expect(version).toBeGreaterThan(stored.indexOf('dup'));
        if (kind === 'stored') expect(version).toBeGreaterThan(0);
      });
    }, 60_000);

    it('stores a batch once when several writers retry it at the same time', async () => {
      const pool = await instances();
      const c = newId('retry-race');
      const batch = ids('r1', 'r2', 'r3');
      const results = await Promise.all(
        Array.from({ length: WRITERS }, (_, w) =>
          pool[w % pool.length]!.add(c, batch, { expectedVersion: 0 }),
        ),
      );
      expect(results.every((r) => r.version === 3)).toBe(true);
      expect((await pool[0]!.get(c)).map((m) => m.id)).toEqual(['r1', 'r2', 'r3']);
    }, 60_000);
  });
}
