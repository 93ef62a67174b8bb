import { randomUUID } from 'node:crypto';
import { ConversationVersionConflictError } from '../modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ChatMessage } from '../common/messages/chat-message.interface.js';
import { type ConformanceHooks, type InstanceUnderTest, rejectionOf } from './conformance-hooks.js';
import { registerContentPartsConformance } from './chat-memory-parts.conformance.js';
import { registerConcurrencyConformance } from './chat-memory-concurrency.conformance.js';
import { registerBadInputConformance } from './chat-memory-bad-input.conformance.js';
import { registerPageConformance } from './chat-memory-page.conformance.js';
import { registerIsolationConformance } from './chat-memory-isolation.conformance.js';
import { contents, ids, texts } from './conformance-messages.js';

/** What a backend can promise, so the suite only asks what it can do. */
export interface ChatMemoryStoreCapabilities {
  /** A new instance on the same database sees what an earlier one wrote. */
  durable: boolean;
  /** Independent instances (separate connections, or processes) share one conversation space. */
  sharedAcrossInstances: boolean;
}

/** Opens a new, independent instance of the store under test (a new module, connection or client). */
export type ChatMemoryStoreFactory = () => Promise<InstanceUnderTest<ChatMemoryStore>>;

/**
 * Registers the conformance suite for one `ChatMemoryStore` backend. Every test uses
 * fresh conversation ids, so it can run against a shared, non-empty database.
 *
 * @example
 * runChatMemoryStoreConformance('redis', openRedisStore, { describe, it, expect, afterAll },
 *   { durable: true, sharedAcrossInstances: true });
 */
export function runChatMemoryStoreConformance(
  backendName: string,
  factory: ChatMemoryStoreFactory,
  hooks: ConformanceHooks,
  capabilities: ChatMemoryStoreCapabilities,
): void {
  const { describe, it, expect } = hooks;
  const opened: Array<InstanceUnderTest<ChatMemoryStore>> = [];
  let primary: Promise<ChatMemoryStore> | undefined;
  const open = async (): Promise<ChatMemoryStore> => {
    const instance = await factory();
    opened.push(instance);
    return instance.subject;
  };
  const store = (): Promise<ChatMemoryStore> => (primary ??= open());
  const created: string[] = [];
  const newId = (label: string): string => {
    const id = `conformance:${label}:${randomUUID()}`;
    created.push(id);
    return id;
  };
  hooks.afterAll?.(async () => {
    // Leave a shared database as it was found: clear every conversation the suite wrote.
    if (primary) {
      const s = await primary;
      for (const id of created) await s.clear(id);
    }
    await Promise.all(opened.map((instance) => instance.close()));
  });

  describe(`ChatMemoryStore conformance: ${backendName}`, () => {
    describe('round trip', () => {
      it('returns every message shape with exactly the fields it was given, plus id', async () => {
        const s = await store();
        const c = newId('shapes');
        const messages: ChatMessage[] = [
          { role: 'system', content: 'You are terse.' },
          {
            role: 'user',
            content: 'Héllo wörld — 你好 — مرحبا — 🦄𝔘 — "quotes" \\ back\nslash',
            name: 'ana',
          },
          {
            role: 'assistant',
            content: null,
            toolCalls: [
              { id: 'call_1', name: 'lookup', arguments: '{"q":"x","n":1}' },
              { id: 'call_2', name: 'noop', arguments: '{}' },
            ],
          },
          { role: 'tool', content: '{"ok":true}', toolCallId: 'call_1', name: 'lookup' },
          { role: 'tool', content: '', toolCallId: 'call_2' },
          {
            role: 'assistant',
            content: 'done',
            metadata: { nested: { list: [1, 'two', null, true] }, score: 0.5 },
          },
        ];
        const { ids, version } = await s.add(c, messages);
        expect(version).toBe(messages.length);
        expect(ids).toHaveLength(messages.length);
        expect(await s.get(c)).toEqual(messages.map((message, i) => ({ ...message, id: ids[i] })));
      });

      it('stores a 1 MB content intact', async () => {
        const s = await store();
        const c = newId('large');
        const content = 'ab€'.repeat(350_000);
        await s.add(c, [{ id: 'big', role: 'user', content }]);
        const [stored] = await s.get(c);
        expect(stored?.content).toBe(content);
      });

      it('stores a batch of 2,000 messages (2 MB) in one add, in order', async () => {
        const s = await store();
        const c = newId('batch');
        const batch = Array.from({ length: 2_000 }, (_, i) => ({
          id: `m${i}`,
          role: 'user' as const,
          content: `${i} `.padEnd(1_000, '·'),
        }));
        expect((await s.add(c, batch)).version).toBe(2_000);
        expect(await s.get(c)).toEqual(batch);
        expect((await s.add(c, batch.slice(1_990))).version).toBe(2_000); // a retried tail: no-op
      });

      it('keeps caller ids, assigns UUIDs to the others, and returns ids in input order', async () => {
        const s = await store();
        const c = newId('ids');
        const { ids } = await s.add(c, [
          { id: 'mine-1', role: 'user', content: 'a' },
          { role: 'assistant', content: 'b' },
          { id: 'mine-2', role: 'user', content: 'c' },
          { id: undefined, role: 'user', content: 'd' },
        ]);
        expect(ids[0]).toBe('mine-1');
        expect(ids[2]).toBe('mine-2');
        const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
        expect([ids[1], ids[3]].map((id) => uuid.test(id!))).toEqual([true, true]);
        expect((await s.get(c)).map((m) => m.id)).toEqual(ids);
      });

      it('drops undefined fields and never aliases the caller’s objects', async () => {
        const s = await store();
        const c = newId('copies');
        const metadata = { tags: ['a'] };
        const message: ChatMessage = { role: 'user', content: 'x', name: undefined, metadata };
        const { ids } = await s.add(c, [message]);
        metadata.tags.push('mutated');
        const [first] = await s.get(c);
        expect(first).toEqual({
          id: ids[0],
          role: 'user',
          content: 'x',
          metadata: { tags: ['a'] },
        });
        first!.metadata!.tags = 'changed';
        expect((await s.get(c))[0]?.metadata).toEqual({ tags: ['a'] });
      });
    });

    describe('ordering and reads', () => {
      it('keeps order across batches and counts the version', async () => {
        const s = await store();
        const c = newId('order');
        expect(await s.version(c)).toBe(0);
        expect(await s.get(c)).toEqual([]);
        expect((await s.add(c, texts('a', 'b'))).version).toBe(2);
        expect((await s.add(c, texts('c'))).version).toBe(3);
        expect((await s.add(c, texts('d', 'e', 'f'))).version).toBe(6);
        expect(contents(await s.get(c))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
        expect(await s.version(c)).toBe(6);
      });

      it('tail(n) returns the newest n, oldest first, for n below, equal to and above the size', async () => {
        const s = await store();
        const c = newId('tail');
        await s.add(c, texts('1', '2', '3', '4', '5'));
        expect(contents(await s.tail(c, 2))).toEqual(['4', '5']);
        expect(contents(await s.tail(c, 5))).toEqual(['1', '2', '3', '4', '5']);
        expect(contents(await s.tail(c, 50))).toEqual(['1', '2', '3', '4', '5']);
        expect(await s.tail(c, 0)).toEqual([]);
        expect(await s.tail(newId('tail-empty'), 3)).toEqual([]);
      });

      it('range(fromVersion, limit) pages oldest first', async () => {
        const s = await store();
        const c = newId('range');
        await s.add(c, texts('1', '2', '3', '4', '5'));
        expect(contents(await s.range(c, 0, 2))).toEqual(['1', '2']);
        expect(contents(await s.range(c, 2, 2))).toEqual(['3', '4']);
        expect(contents(await s.range(c, 4, 10))).toEqual(['5']);
        expect(await s.range(c, 5, 10)).toEqual([]);
        expect(await s.range(c, 0, 0)).toEqual([]);
      });

      it('treats an empty batch as a no-op that returns the version', async () => {
        const s = await store();
        const c = newId('empty-batch');
        await s.add(c, texts('a'));
        expect(await s.add(c, [])).toEqual({ version: 1, ids: [] });
        expect(await s.add(c, [], { expectedVersion: 99 })).toEqual({ version: 1, ids: [] });
        expect(await s.add(newId('empty-new'), [])).toEqual({ version: 0, ids: [] });
      });
    });

    registerIsolationConformance(hooks, {
      store,
      newId,
      track: (...conversationIds) => created.push(...conversationIds),
    });

    describe('idempotency and versions', () => {
      it('re-adding the same batch is a no-op', async () => {
        const s = await store();
        const c = newId('same-batch');
        const batch = ids('a', 'b', 'c');
        expect((await s.add(c, batch)).version).toBe(3);
        expect(await s.add(c, batch)).toEqual({ version: 3, ids: ['a', 'b', 'c'] });
        expect((await s.get(c)).map((m) => m.id)).toEqual(['a', 'b', 'c']);
      });

      it('an overlapping batch appends only the new messages, in order, without comparing content', async () => {
        const s = await store();
        const c = newId('overlap');
        await s.add(c, ids('a', 'b'));
        const result = await s.add(c, [
          { id: 'b', role: 'user', content: 'changed' },
          ...ids('c', 'd'),
        ]);
        expect(result).toEqual({ version: 4, ids: ['b', 'c', 'd'] });
        expect(contents(await s.get(c))).toEqual(['a', 'b', 'c', 'd']);
      });

      it('a fully stored batch succeeds whatever its expectedVersion (a retry converges)', async () => {
        const s = await store();
        const c = newId('retry');
        await s.add(c, ids('a', 'b'), { expectedVersion: 0 });
        await s.add(c, ids('c'));
        expect((await s.add(c, ids('a', 'b'), { expectedVersion: 0 })).version).toBe(3);
        expect(await s.version(c)).toBe(3);
      });

      it('accepts a matching expectedVersion', async () => {
        const s = await store();
        const c = newId('expected-ok');
        expect((await s.add(c, texts('a'), { expectedVersion: 0 })).version).toBe(1);
        expect((await s.add(c, texts('b', 'c'), { expectedVersion: 1 })).version).toBe(3);
      });

      it('rejects a stale expectedVersion with the expected and actual versions, writing nothing', async () => {
        const s = await store();
        const c = newId('expected-conflict');
        await s.add(c, ids('a', 'b'));
        const error = await rejectionOf(
          s.add(c, ids('a', 'new-1', 'new-2'), { expectedVersion: 1 }),
        );
        expect(error).toBeInstanceOf(ConversationVersionConflictError);
        const conflict = error as ConversationVersionConflictError;
        expect([conflict.conversationId, conflict.expectedVersion, conflict.actualVersion]).toEqual(
          [c, 1, 2],
        );
        expect((await s.get(c)).map((m) => m.id)).toEqual(['a', 'b']);
        const brandNew = newId('expected-new');
        expect(
          await rejectionOf(s.add(brandNew, texts('x'), { expectedVersion: 3 })),
        ).toBeInstanceOf(ConversationVersionConflictError);
        expect(await s.version(brandNew)).toBe(0);
      });
    });

    registerContentPartsConformance(hooks, store, newId);

    registerBadInputConformance(hooks, { store, newId });
    registerPageConformance(hooks, { store, newId });

    if (capabilities.durable) {
      it('is durable: a new instance on the same database sees the history', async () => {
        const writer = await factory();
        const c = newId('durable');
        try {
          await writer.subject.add(c, ids('a', 'b'));
        } finally {
          await writer.close();
        }
        const reader = await open();
        expect((await reader.get(c)).map((m) => m.id)).toEqual(['a', 'b']);
        expect(await reader.version(c)).toBe(2);
      });
    }

    registerConcurrencyConformance(hooks, {
      store,
      open,
      newId,
      sharedAcrossInstances: capabilities.sharedAcrossInstances,
    });
  });
}
