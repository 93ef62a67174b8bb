import type { ChatMemoryStore } from '../modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ConformanceHooks } from './conformance-hooks.js';
import { contents, texts } from './conformance-messages.js';

/** What the page cases need of the suite: its store and its ids. */
export interface PageConformanceContext {
  /** The suite's primary instance. */
  store(): Promise<ChatMemoryStore>;
  /** A fresh conversation id, cleared when the suite ends. */
  newId(label: string): string;
}

/**
 * `page` of the `ChatMemoryStore` conformance suite, for a store that has it: the newest messages
 * up to a position, cut by a byte budget (the newest always taken), with the version they were read
 * at — consistent with each other while writers append.
 */
export function registerPageConformance(
  hooks: ConformanceHooks,
  { store, newId }: PageConformanceContext,
): void {
  const { describe, it, expect } = hooks;
  const paged = async () => {
    const s = await store();
    if (!s.page) throw new Error('this store has no page()');
    return s as ChatMemoryStore & Required<Pick<ChatMemoryStore, 'page'>>;
  };

  describe('page', () => {
    it('reads the newest count before a position, oldest first, with the version and its start', async () => {
      const s = await paged();
      const c = newId('page');
      await s.add(c, texts('1', '2', '3', '4', '5', '6', '7'));
      const newest = await s.page(c, { count: 3, maxBytes: 1_000_000 });
      expect({ ...newest, messages: contents(newest.messages) }).toEqual({
        version: 7,
        messages: ['5', '6', '7'],
        from: 4,
      });
      const earlier = await s.page(c, { before: 5, count: 3, maxBytes: 1_000_000 });
      expect(contents(earlier.messages)).toEqual(['2', '3', '4']);
      expect(earlier.from).toBe(1);
      const first = await s.page(c, { before: 2, count: 3, maxBytes: 1_000_000 });
      expect([contents(first.messages), first.from]).toEqual([['1'], 0]);
      const past = await s.page(c, { before: 100, count: 2, maxBytes: 1_000_000 });
      expect([contents(past.messages), past.from, past.version]).toEqual([['6', '7'], 5, 7]);
      const all = await s.page(c, { count: 1000, maxBytes: 1_000_000 });
      expect([all.messages.length, all.from]).toEqual([7, 0]);
      expect(all.messages.map((message) => message.id)).toEqual(
        (await s.get(c)).map((message) => message.id),
      );
    });

    it('is empty at version 0 for an unknown conversation, and before position 1', async () => {
      const s = await paged();
      expect(await s.page(newId('page-unknown'), { count: 5, maxBytes: 1000 })).toEqual({
        version: 0,
        messages: [],
        from: 0,
      });
      const c = newId('page-start');
      await s.add(c, texts('a', 'b'));
      expect(await s.page(c, { before: 1, count: 5, maxBytes: 1000 })).toEqual({
        version: 2,
        messages: [],
        from: 0,
      });
    });

    it('stops at the byte budget of stored JSON, and always takes the newest', async () => {
      const s = await paged();
      const c = newId('page-bytes');
      const big = (tag: string) => `${tag}${'x'.repeat(999)}`;
      await s.add(c, texts(big('a'), big('b'), big('c'), big('d')));
      // Each stored message is a little over 1,000 bytes: 2,500 holds two, not three.
      const two = await s.page(c, { count: 10, maxBytes: 2_500 });
      expect(two.messages.map((message) => (message.content as string)[0])).toEqual(['c', 'd']);
      expect([two.from, two.version]).toEqual([2, 4]);
      const one = await s.page(c, { count: 10, maxBytes: 10 });
      expect(one.messages.map((message) => (message.content as string)[0])).toEqual(['d']);
      const multiByte = newId('page-utf8');
      // 400 three-byte characters: 1,200 bytes of UTF-8 but 400 characters each.
      await s.add(multiByte, texts('€'.repeat(400), '€'.repeat(400), '€'.repeat(400)));
      expect((await s.page(multiByte, { count: 10, maxBytes: 2_000 })).messages).toHaveLength(1);
    });

    it('reads a page that agrees with its version while writers append', async () => {
      const s = await paged();
      const c = newId('page-race');
      await s.add(c, texts('0'));
      const writing = (async () => {
        for (let i = 1; i <= 40; i += 1) await s.add(c, texts(String(i)));
      })();
      const pages = [];
      for (let i = 0; i < 20; i += 1)
        pages.push(await s.page(c, { count: 3, maxBytes: 1_000_000 }));
      await writing;
      for (const page of pages) {
        // The newest message of the page is the one at the version it reports.
        expect(page.messages.at(-1)!.content).toBe(String(page.version - 1));
        expect(page.from).toBe(page.version - page.messages.length);
      }
    });
  });
}
