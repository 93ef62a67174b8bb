import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { AgentInputItem } from '@openai/agents';
import { randomUUID } from 'node:crypto';
import { ConversationVersionConflictError } from '../../src/modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import {
  ChatMemorySession,
  SessionHistoryConflictError,
  liveSessionMessages,
} from '../../src/modules/openai-agents/index.js';
import type { InstanceUnderTest } from '../../src/testing/conformance-hooks.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { sampleItems, userItem } from './sample-items.js';
import { sessionBackends } from './session-backends.js';

let conflicts = 0;

/** The store, counting the writes its version check refuses (the pops that lost a race). */
function conflictCounting(store: ChatMemoryStore): ChatMemoryStore {
  return new Proxy(store, {
    get: (target, property, receiver) =>
      property === 'add'
        ? (...args: Parameters<ChatMemoryStore['add']>) =>
            target.add(...args).catch((error: unknown) => {
              if (error instanceof ConversationVersionConflictError) conflicts += 1;
              throw error;
            })
        : bound(target, Reflect.get(target, property, receiver)),
  });
}

function bound(target: object, value: unknown): unknown {
  return typeof value === 'function'
    ? (value as (...args: unknown[]) => unknown).bind(target)
    : value;
}

const users = (count: number, prefix = 'm'): AgentInputItem[] =>
  Array.from({ length: count }, (_, index) => userItem(`${prefix}${index}`));

describe.each(sessionBackends())('ChatMemorySession on $label', (backend) => {
  let first: InstanceUnderTest<ChatMemoryStore>;
  let second: InstanceUnderTest<ChatMemoryStore>;
  const sessions: ChatMemorySession[] = [];

  beforeAll(async () => {
    first = await openChatMemoryModule(backend.options);
    // A second application on the same database, as another process would be (memory: the same store).
    second = backend.shared ? await openChatMemoryModule(backend.options) : first;
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.clearSession()));
  });
  afterAll(async () => {
    if (second !== first) await second.close();
    await first.close();
  });

  function session(store = first.subject, sessionId = randomUUID()): ChatMemorySession {
    const created = new ChatMemorySession({ store, sessionId });
    sessions.push(created);
    return created;
  }

  it('gives back every kind of item exactly as it was added, from a fresh store instance too', async () => {
    const writer = session();
    await writer.addItems(sampleItems());
    await writer.addItems([userItem('after')]);
    const expected = [...sampleItems(), userItem('after')];
    expect(await writer.getItems()).toStrictEqual(expected);
    const reader = new ChatMemorySession({
      store: second.subject,
      sessionId: await writer.getSessionId(),
    });
    expect(await reader.getItems()).toStrictEqual(expected);
    expect(await reader.getItems(3)).toStrictEqual(expected.slice(-3));
  });

  it('stores each item as a native message the library can read, the exact item in its metadata', async () => {
    const writer = session();
    await writer.addItems(sampleItems());
    const messages = await first.subject.get(await writer.getSessionId());
    const native = messages.map(({ role, content, toolCalls, toolCallId, name }) => ({
      role,
      content,
      ...(toolCalls ? { toolCalls } : {}),
      ...(toolCallId ? { toolCallId, name } : {}),
    }));
    expect(native).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'reasoning', text: 'raw thoughts' }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'A cat.' },
          { type: 'text', text: 'No faces.' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"cat"}' }],
      },
      {
        role: 'tool',
        content: 'nul \uFFFD and lone \ud800 surrogate',
        toolCallId: 'call_1',
        name: 'lookup',
      },
      {
        role: 'tool',
        content: expect.stringContaining('"mediaType":"image/png"'),
        toolCallId: 'call_2',
        name: 'render',
      },
      {
        role: 'tool',
        content: expect.stringContaining('part one'),
        toolCallId: 'call_3',
        name: 'parts',
      },
      { role: 'assistant', content: null },
      { role: 'assistant', content: null },
      { role: 'assistant', content: null },
    ]);
    expect(messages.every((message) => message.metadata?.openaiAgents !== undefined)).toBe(true);
  });

  it('popItem removes and returns the newest item, then the one before; undefined when empty', async () => {
    const subject = session();
    await subject.addItems(users(3));
    expect(await subject.popItem()).toEqual(userItem('m2'));
    expect(await subject.popItem()).toEqual(userItem('m1'));
    expect(await subject.getItems()).toEqual([userItem('m0')]);
    await subject.addItems([userItem('m3')]);
    expect(await subject.getItems()).toEqual([userItem('m0'), userItem('m3')]);
    expect(await subject.popItem()).toEqual(userItem('m3'));
    expect(await subject.popItem()).toEqual(userItem('m0'));
    expect(await subject.popItem()).toBeUndefined();
    expect(await subject.getItems()).toEqual([]);
  });

  it('concurrent popItem calls, from two store instances, pop distinct items: the newest ones', async () => {
    conflicts = 0;
    const sessionId = randomUUID();
    const one = session(conflictCounting(first.subject), sessionId);
    const other = new ChatMemorySession({ store: conflictCounting(second.subject), sessionId });
    await one.addItems(users(14));
    const pops = 10;
    const popped = await Promise.all(
      Array.from({ length: pops }, (_, index) => (index % 2 ? one : other).popItem()),
    );
    const texts = popped.map((item) => (item as { content: string }).content);
    expect(new Set(texts).size).toBe(pops);
    expect([...texts].sort()).toEqual(
      users(14)
        .slice(-pops)
        .map((item) => (item as { content: string }).content)
        .sort(),
    );
    expect(await other.getItems()).toEqual(users(4));
    // The pops did race: some writes were refused by the version check, and tried again.
    expect(conflicts).toBeGreaterThan(0);
  });

  it('getItems(limit) gives the newest live items, reading back across pages and markers', async () => {
    const subject = session();
    await subject.addItems(users(40));
    for (let pop = 0; pop < 20; pop += 1) await subject.popItem();
    await subject.addItems(users(3, 'n'));
    expect(await subject.getItems(5)).toEqual([userItem('m18'), userItem('m19'), ...users(3, 'n')]);
    expect(await subject.getItems(100)).toEqual([...users(20), ...users(3, 'n')]);
    expect(await subject.getItems(0)).toEqual([]);
  });

  it('clearSession removes every item and marker; the session starts over', async () => {
    const subject = session();
    await subject.addItems(users(3));
    await subject.popItem();
    await subject.clearSession();
    expect(await subject.getItems()).toEqual([]);
    expect(await first.subject.version(await subject.getSessionId())).toBe(0);
    await subject.addItems([userItem('again')]);
    expect(await subject.getItems()).toEqual([userItem('again')]);
  });

  it('applyHistoryMutations replaces a function call in place and drops its later copies', async () => {
    const subject = session();
    const call = (args: string): AgentInputItem => ({
      type: 'function_call',
      callId: 'call_x',
      name: 'f',
      arguments: args,
    });
    await subject.addItems([userItem('a'), call('{"v":1}'), userItem('b'), call('{"v":2}')]);
    await subject.applyHistoryMutations({
      mutations: [
        { type: 'replace_function_call', callId: 'call_x', replacement: call('{"v":3}') as never },
      ],
    });
    expect(await subject.getItems()).toEqual([userItem('a'), call('{"v":3}'), userItem('b')]);
    const live = liveSessionMessages(await first.subject.get(await subject.getSessionId()));
    expect(live.map((message) => message.toolCalls?.[0]?.arguments ?? message.content)).toEqual([
      'a',
      '{"v":3}',
      'b',
    ]);
  });

  it('applyHistoryTransaction applies once per operation id, and refuses a mismatch', async () => {
    const subject = session();
    await subject.addItems([userItem('a'), userItem('b')]);
    const append = { type: 'append_items' as const, items: [userItem('c')] };
    await subject.applyHistoryTransaction({ operationId: 'op-1', transaction: append });
    await subject.applyHistoryTransaction({ operationId: 'op-1', transaction: append });
    expect(await subject.getItems()).toEqual([userItem('a'), userItem('b'), userItem('c')]);
    await expect(
      subject.applyHistoryTransaction({
        operationId: 'op-1',
        transaction: { ...append, items: [userItem('z')] },
      }),
    ).rejects.toBeInstanceOf(SessionHistoryConflictError);

    const replace = {
      type: 'replace_suffix' as const,
      expectedSuffix: [userItem('b'), userItem('c')],
      replacement: [userItem('B')],
    };
    await subject.applyHistoryTransaction({ operationId: 'op-2', transaction: replace });
    await subject.applyHistoryTransaction({ operationId: 'op-2', transaction: replace });
    expect(await subject.getItems()).toEqual([userItem('a'), userItem('B')]);
    await expect(
      subject.applyHistoryTransaction({ operationId: 'op-3', transaction: replace }),
    ).rejects.toBeInstanceOf(SessionHistoryConflictError);
    expect(await subject.getItems()).toEqual([userItem('a'), userItem('B')]);
  });

  it('replaceHistoryWithCompaction swaps the whole history in one write', async () => {
    const subject = session();
    await subject.addItems(users(4));
    const compacted: AgentInputItem[] = [
      { type: 'compaction', encrypted_content: 'summary' },
      userItem('m3'),
    ];
    await subject.replaceHistoryWithCompaction(compacted);
    expect(await subject.getItems()).toEqual(compacted);
    expect(await subject.getItems(1)).toEqual([userItem('m3')]);
  });

  it("reads messages another writer stored (the library's agent) as items, and pops them", async () => {
    const subject = session();
    const sessionId = await subject.getSessionId();
    await first.subject.add(sessionId, [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'c1', name: 'get_weather', content: 'sunny' },
    ]);
    await subject.addItems([userItem('thanks')]);
    expect(await subject.getItems()).toEqual([
      userItem('weather?'),
      {
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Checking.' }],
      },
      {
        type: 'function_call',
        callId: 'c1',
        name: 'get_weather',
        arguments: '{}',
        status: 'completed',
      },
      {
        type: 'function_call_result',
        callId: 'c1',
        name: 'get_weather',
        status: 'completed',
        output: 'sunny',
      },
      userItem('thanks'),
    ]);
    await subject.popItem();
    await subject.popItem();
    await subject.popItem();
    expect(await subject.getItems()).toEqual([
      userItem('weather?'),
      {
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Checking.' }],
      },
    ]);
    const live = liveSessionMessages(await first.subject.get(sessionId));
    expect(live.map(({ role, content, toolCalls }) => ({ role, content, toolCalls }))).toEqual([
      { role: 'user', content: 'weather?', toolCalls: undefined },
      { role: 'assistant', content: 'Checking.', toolCalls: undefined },
    ]);
  });
});
