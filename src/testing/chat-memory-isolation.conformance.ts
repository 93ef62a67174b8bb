import { type ConformanceHooks } from './conformance-hooks.js';
import { contents } from './conformance-messages.js';
import type { PageConformanceContext } from './chat-memory-page.conformance.js';

/** What the isolation cases need of the suite: its store, its ids, and ids to clear at the end. */
export interface IsolationConformanceContext extends PageConformanceContext {
  /** Conversation ids made by hand, cleared when the suite ends. */
  track(...conversationIds: string[]): void;
}

/**
 * Isolation and clear of the `ChatMemoryStore` conformance suite: conversations kept apart (the same
 * message ids included), and a clear that removes one conversation's history and version only.
 */
export function registerIsolationConformance(
  hooks: ConformanceHooks,
  { store, newId, track }: IsolationConformanceContext,
): void {
  const { describe, it, expect } = hooks;
  describe('isolation and clear', () => {
    it('keeps conversations apart, even with the same message ids', async () => {
      const s = await store();
      const [a, b] = [newId('iso-a'), newId('iso-b')];
      await s.add(a, [{ id: 'm1', role: 'user', content: 'in a' }]);
      await s.add(b, [{ id: 'm1', role: 'user', content: 'in b' }]);
      expect(contents(await s.get(a))).toEqual(['in a']);
      expect(contents(await s.get(b))).toEqual(['in b']);
    });

    it('compares conversation and message ids exactly (case, trailing spaces)', async () => {
      const s = await store();
      const base = newId('exact');
      track(`${base}c1`, `${base}C1`, `${base}c1 `);
      for (const c of [`${base}c1`, `${base}C1`, `${base}c1 `])
        await s.add(c, [{ id: 'm', role: 'user', content: c }]);
      expect(contents(await s.get(`${base}c1`))).toEqual([`${base}c1`]);
      expect(contents(await s.get(`${base}C1`))).toEqual([`${base}C1`]);
      expect(contents(await s.get(`${base}c1 `))).toEqual([`${base}c1 `]);
      const c = newId('exact-msg');
      await s.add(c, [
        { id: 'm', role: 'user', content: '1' },
        { id: 'M', role: 'user', content: '2' },
        { id: 'm ', role: 'user', content: '3' },
      ]);
      expect(await s.version(c)).toBe(3);
    });

    it('clear removes one conversation with its ids, and the ids may be used again', async () => {
      const s = await store();
      const [a, b] = [newId('clear-a'), newId('clear-b')];
      await s.add(a, [{ id: 'x', role: 'user', content: 'a1' }]);
      await s.add(b, [{ id: 'x', role: 'user', content: 'b1' }]);
      await s.clear(a);
      expect(await s.get(a)).toEqual([]);
      expect(await s.version(a)).toBe(0);
      expect(contents(await s.get(b))).toEqual(['b1']);
      expect(await s.add(a, [{ id: 'x', role: 'user', content: 'again' }])).toEqual({
        version: 1,
        ids: ['x'],
      });
      expect(contents(await s.get(a))).toEqual(['again']);
      await s.clear(newId('clear-unknown'));
    });
  });
}
