import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { ChatMessage } from '../../src/common/messages/chat-message.interface.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import type { MemoryProvider } from '../../src/modules/memory-provider/interfaces/memory-provider.interface.js';
import { DefaultMemoryProvider } from '../../src/modules/memory-provider/providers/default.memory-provider.js';
import { TokenBudgetMemoryProvider } from '../../src/modules/memory-provider/providers/token-budget.memory-provider.js';

/** Histories of user and assistant messages and tool rounds (some results missing), as turns store them. */
const historyArbitrary = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('user' as const), words: fc.integer({ min: 0, max: 40 }) }),
      fc.record({
        kind: fc.constant('assistant' as const),
        words: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({
        kind: fc.constant('round' as const),
        calls: fc.integer({ min: 1, max: 3 }),
        answered: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      }),
    ),
    { maxLength: 80 },
  )
  .map((events) => {
    const messages: ChatMessage[] = [];
    events.forEach((event, n) => {
      if (event.kind !== 'round')
        messages.push({
          role: event.kind,
          content: `${event.kind} ${n} ${'word '.repeat(event.words)}`,
        });
      else {
        const ids = Array.from({ length: event.calls }, (_, i) => `call_${i}`);
        messages.push({
          role: 'assistant',
          content: null,
          toolCalls: ids.map((id) => ({ id, name: 'lookup', arguments: `{"n":${n}}` })),
        });
        ids.forEach(
          (id, i) =>
            event.answered[i] &&
            messages.push({ role: 'tool', toolCallId: id, content: `result ${n}` }),
        );
      }
    });
    return messages;
  });

/** What the agent sends: the provider's window over (history before the turn + the turn). */
async function sent(
  provider: MemoryProvider,
  conversationId: string,
  history: ChatMessage[],
  turn: ChatMessage[],
): Promise<unknown[]> {
  const output = await provider.prepare(conversationId, [...history, ...turn], {
    systemPrompts: ['Be brief.'],
  });
  return output.map(({ role, content, toolCalls, toolCallId }) => ({
    role,
    content,
    toolCalls,
    toolCallId,
  }));
}

const providers: Array<[string, fc.Arbitrary<(store: InMemoryChatMemoryStore) => MemoryProvider>]> =
  [
    [
      'a window',
      fc
        .integer({ min: 1, max: 40 })
        .map((window) => (store) => new DefaultMemoryProvider(store, window)),
    ],
    [
      'a token budget',
      fc.integer({ min: 5, max: 600 }).map(
        (maxTokens) => (store) =>
          new TokenBudgetMemoryProvider(store, {
            maxTokens,
            counter: (text) => Math.ceil(text.length / 4),
          }),
      ),
    ],
  ];

describe.each(providers)('the newest part of a history, under %s', (_name, providerArbitrary) => {
  it('sends exactly what the whole history would', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, providerArbitrary, async (history, make) => {
        const store = new InMemoryChatMemoryStore();
        const provider = make(store);
        if (history.length) await store.add('c', history);
        const turn: ChatMessage[] = [{ role: 'user', content: 'and now?' }];
        const whole = await provider.history('c');
        const recent = await provider.recentHistory!('c');
        expect(recent.version).toBe(whole.version);
        expect(recent.messages).toEqual(whole.messages.slice(recent.from));
        expect(await sent(provider, 'c', recent.messages, turn)).toEqual(
          await sent(provider, 'c', whole.messages, turn),
        );
        // Ending at an older version (a retried scope) reads the part that ends there.
        const end = Math.floor(whole.version / 2);
        const older = await provider.recentHistory!('c', end);
        expect(await sent(provider, 'c', older.messages, turn)).toEqual(
          await sent(provider, 'c', whole.messages.slice(0, end), turn),
        );
        // The same part whatever the provider read before (it starts where it was enough last).
        expect(older).toEqual(await make(store).recentHistory!('c', end));
        expect(await provider.recentHistory!('c')).toEqual(recent);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a bounded policy reads a bounded part', () => {
  it('reads the newest messages only, however long the history', async () => {
    const store = new InMemoryChatMemoryStore();
    const many = Array.from({ length: 5_000 }, (_, i) => ({
      role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
      content: `message ${i} with a few words in it`,
    }));
    await store.add('long', many);
    const budget = new TokenBudgetMemoryProvider(store, {
      maxTokens: 300,
      counter: (t) => t.length / 4,
    });
    expect((await budget.recentHistory('long')).messages.length).toBeLessThanOrEqual(64);
    const window = new DefaultMemoryProvider(store, 20);
    expect((await window.recentHistory!('long')).messages).toHaveLength(20);
    expect(new DefaultMemoryProvider(store).recentHistory).toBeUndefined();
  });

  it('reads only older messages when it needs more, and starts where it was enough last time', async () => {
    const store = new InMemoryChatMemoryStore();
    await store.add(
      'long',
      Array.from({ length: 2_000 }, (_, i) => ({
        role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
        content: `message ${i}`,
      })),
    );
    const reads: Array<[number, number]> = [];
    const range = store.range.bind(store);
    store.range = (id, from, count) => (reads.push([from, count]), range(id, from, count));
    // 10 tokens a message with the overhead: 100 messages reach 1,000, the part of 256 holds them.
    const budget = new TokenBudgetMemoryProvider(store, { maxTokens: 1_000, counter: () => 6 });
    const first = await budget.recentHistory('long');
    expect(reads).toEqual([
      [1_984, 16],
      [1_936, 48],
      [1_744, 192],
    ]);
    expect(first).toMatchObject({ from: 1_744, version: 2_000 });
    expect(first.messages).toHaveLength(256);
    reads.length = 0;
    await store.add('long', [{ role: 'user', content: 'one more' }]);
    const next = await budget.recentHistory('long');
    expect(reads).toEqual([[1_745, 256]]);
    expect(next).toEqual({
      messages: (await store.get('long')).slice(1_745),
      version: 2_001,
      from: 1_745,
    });
  });
});
