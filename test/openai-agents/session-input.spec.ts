import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentInputItem } from '@openai/agents';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { ConversationVersionConflictError } from '../../src/modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { ChatMemorySession } from '../../src/modules/openai-agents/index.js';
import type { InstanceUnderTest } from '../../src/testing/conformance-hooks.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { userItem } from './sample-items.js';

describe('ChatMemorySession: what it refuses', () => {
  let memory: InstanceUnderTest<ChatMemoryStore>;
  beforeAll(async () => {
    memory = await openChatMemoryModule({ backend: 'memory' });
  });
  afterAll(() => memory.close());

  it('refuses bad options', () => {
    const store = memory.subject;
    expect(() => new ChatMemorySession({ store: {} as ChatMemoryStore })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new ChatMemorySession({ store, sessionId: '' })).toThrow(InvalidArgumentError);
    expect(() => new ChatMemorySession({ store, maxAttempts: 0 })).toThrow(InvalidArgumentError);
  });

  it('refuses an item that is not plain data, naming where, and writes nothing', async () => {
    const session = new ChatMemorySession({ store: memory.subject });
    const dated = { ...userItem('x'), providerData: { at: new Date(0) } } as AgentInputItem;
    await expect(session.addItems([userItem('ok'), dated])).rejects.toThrow(
      /items\[1\].*Date instance.*\["providerData"\]\["at"\]/,
    );
    const cyclic: Record<string, unknown> = { role: 'user', content: 'c' };
    cyclic.providerData = { self: cyclic };
    await expect(session.addItems([cyclic as AgentInputItem])).rejects.toThrow(/a cycle/);
    expect(await session.getItems()).toEqual([]);
  });

  it('refuses a limit that is not a number, and an unknown history mutation', async () => {
    const session = new ChatMemorySession({ store: memory.subject });
    await expect(session.getItems(Number.NaN)).rejects.toThrow(InvalidArgumentError);
    await session.addItems([userItem('a')]);
    await expect(
      session.applyHistoryMutations({ mutations: [{ type: 'drop_everything' } as never] }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      session.applyHistoryTransaction({
        operationId: ' ',
        transaction: { type: 'append_items', items: [] },
      }),
    ).rejects.toThrow(InvalidArgumentError);
    expect(await session.getItems()).toEqual([userItem('a')]);
  });

  it('gives up with the version conflict once maxAttempts are used', async () => {
    const sessionId = 'contended';
    const session = new ChatMemorySession({ store: memory.subject, sessionId, maxAttempts: 1 });
    await session.addItems([userItem('a'), userItem('b')]);
    const results = await Promise.allSettled([session.popItem(), session.popItem()]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(
      ConversationVersionConflictError,
    );
    expect(await session.getItems()).toEqual([userItem('a')]);
  });
});
