import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ConversationVersionConflictError } from '../../src/modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { AddMessagesOptions } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ChatMessage } from '../../src/common/messages/chat-message.interface.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { createFreshDatabase } from '../support/fresh-database.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';

const message = (id: string): ChatMessage => ({ id, role: 'user', content: id });

/** Calls made at once on one store, each with what it must get if they apply in call order. */
const CALLS: Array<{ ids: string[]; options?: AddMessagesOptions; expected: number | 'conflict' }> =
  [
    { ids: ['a'], expected: 1 }, // in flight alone: the others wait and go as one group
    { ids: ['b', 'c'], expected: 3 },
    { ids: ['a'], expected: 3 }, // a retry: stored once
    { ids: ['d'], options: { expectedVersion: 0 }, expected: 'conflict' },
    { ids: ['c', 'b'], options: { expectedVersion: 0 }, expected: 3 }, // all stored: a no-op
    { ids: ['e'], options: { expectedVersion: 3 }, expected: 4 }, // the version at its turn
    { ids: ['f', 'e'], expected: 5 }, // e stored by the call before, in the same group
    { ids: ['g'], options: { expectedVersion: 4 }, expected: 'conflict' },
    { ids: ['h'], options: { expectedVersion: 5 }, expected: 6 },
  ];

type Outcome = number | 'conflict' | 'failed';

async function runCalls(store: ChatMemoryStore, c: string): Promise<Outcome[]> {
  const settled = await Promise.allSettled(
    CALLS.map(({ ids, options }) => store.add(c, ids.map(message), options)),
  );
  return settled.map((s) => {
    if (s.status === 'fulfilled') return s.value.version;
    return s.reason instanceof ConversationVersionConflictError ? 'conflict' : 'failed';
  });
}

/**
 * Concurrent `add`s to one conversation in one process are coalesced (PostgreSQL, Redis): each
 * caller still gets exactly its own outcome, as if the calls had run one by one in call order.
 */
describe.each([
  ['PostgreSQL', { backend: 'postgres', url: TEST_POSTGRES_URL } as const],
  ['Redis', { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: 'coalesce-test:' } as const],
])('coalesced appends on %s', (_label, options) => {
  const closers: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('gives each caller its own outcome, in call order, through one group call', async () => {
    const { subject: store, close } = await openChatMemoryModule(options);
    closers.push(close);
    const group = jest.spyOn(
      store as unknown as { appendGroup(c: string, requests: unknown[]): Promise<unknown> },
      'appendGroup',
    );
    const c = `coalesce-${randomUUID()}`;
    expect(await runCalls(store, c)).toEqual(CALLS.map((call) => call.expected));
    expect(group).toHaveBeenCalledTimes(1);
    expect(group.mock.calls[0]![1]).toHaveLength(CALLS.length - 1);
    expect((await store.get(c)).map((m) => m.id)).toEqual(['a', 'b', 'c', 'e', 'f', 'h']);
    await store.clear(c);
  });

  it('keeps positions contiguous with another instance writing the same conversation', async () => {
    const [one, two] = [await openChatMemoryModule(options), await openChatMemoryModule(options)];
    closers.push(one.close, two.close);
    const c = `coalesce-shared-${randomUUID()}`;
    const writes = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? one : two).subject.add(c, [message(`m${i % 40}`)]),
    );
    const versions = (await Promise.all(writes)).map((r) => r.version);
    const stored = (await one.subject.get(c)).map((m) => m.id);
    expect(stored).toHaveLength(40);
    expect(new Set(stored).size).toBe(40);
    // A first write of an id returns that message's position; a retry a version at or after it.
    versions.forEach((version, i) =>
      expect(version).toBeGreaterThanOrEqual(stored.indexOf(`m${i % 40}`) + 1),
    );
    await one.subject.clear(c);
  });
});

describe('coalesced appends on a PostgreSQL database without agent_chat_append_group', () => {
  it('falls back to one call per caller, each outcome still its own', async () => {
    const database = await createFreshDatabase('postgres');
    try {
      const { subject: store, close } = await openChatMemoryModule({
        backend: 'postgres',
        url: database.url,
      });
      try {
        // A database migrated by an older package version (or by hand) lacks the group function.
        const admin = await new DataSource({ type: 'postgres', url: database.url }).initialize();
        await admin.query(
          'DROP FUNCTION agent_chat_append_group(text, int[], bigint[], text[], text[], text[])',
        );
        await admin.destroy();
        const c = `coalesce-fallback-${randomUUID()}`;
        expect(await runCalls(store, c)).toEqual(CALLS.map((call) => call.expected));
        expect(await runCalls(store, `${c}-again`)).toEqual(CALLS.map((call) => call.expected));
      } finally {
        await close();
      }
    } finally {
      await database.drop();
    }
  }, 60_000);
});
