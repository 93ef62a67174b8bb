import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { countTokens } from 'gpt-tokenizer';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { ConversationVersionConflictError } from '../../src/modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMessage } from '../../src/common/messages/chat-message.interface.js';
import type { MemoryProvider } from '../../src/modules/memory-provider/interfaces/memory-provider.interface.js';
import {
  MEMORY_PROVIDER,
  getMemoryProviderToken,
} from '../../src/modules/memory-provider/memory-provider.constants.js';
import { MemoryProviderModule } from '../../src/modules/memory-provider/memory-provider.module.js';
import { DefaultMemoryProvider } from '../../src/modules/memory-provider/providers/default.memory-provider.js';
import {
  SUMMARY_PREFIX,
  SummarizingMemoryProvider,
} from '../../src/modules/memory-provider/providers/summarizing.memory-provider.js';
import { TokenBudgetMemoryProvider } from '../../src/modules/memory-provider/providers/token-budget.memory-provider.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const turns = (count: number, words = 20): ChatMessage[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i} ${'lorem ipsum '.repeat(words)}`,
  }));

describe('DefaultMemoryProvider', () => {
  it('loads, appends and clears through the store, and prepares the safe window', async () => {
    const store = new InMemoryChatMemoryStore();
    const provider = new DefaultMemoryProvider(store, 2);
    expect(await provider.append('c', [{ role: 'system', content: 'sys' }, ...turns(4)])).toEqual({
      version: 5,
    });
    const { messages, version } = await provider.history('c');
    expect(version).toBe(5);
    expect(
      (await provider.prepare('c', messages)).map((m) => (m.role === 'system' ? m.content : m.id)),
    ).toEqual(['sys', 'm2', 'm3']);
    expect(
      await rejectionOf(
        provider.append('c', [{ role: 'user', content: 'late' }], { expectedVersion: 1 }),
      ),
    ).toBeInstanceOf(ConversationVersionConflictError);
    await provider.clear('c');
    expect((await provider.history('c')).version).toBe(0);
  });

  it('rejects a window that is not a positive integer or Infinity', () => {
    for (const window of [0, -1, 1.5, Number.NaN, '3' as unknown as number]) {
      expect(() => new DefaultMemoryProvider(new InMemoryChatMemoryStore(), window)).toThrow(
        InvalidArgumentError,
      );
    }
    expect(new DefaultMemoryProvider(new InMemoryChatMemoryStore()).window).toBe(Infinity);
  });
});

describe('TokenBudgetMemoryProvider (gpt-tokenizer)', () => {
  const sentTokens = (messages: ChatMessage[]) =>
    messages.reduce((sum, m) => sum + 4 + countTokens((m.content as string | null) ?? ''), 0);

  it('sends the largest safe window that fits the budget, counting prompts and tool schemas', async () => {
    const provider = new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
      maxTokens: 300,
    });
    const history = turns(30);
    const plain = await provider.prepare('c', history);
    expect(sentTokens(plain)).toBeLessThanOrEqual(300);
    expect(sentTokens([history[history.length - plain.length - 1]!, ...plain])).toBeGreaterThan(
      300,
    );
    expect(plain).toEqual(history.slice(-plain.length));
    const tools = [
      {
        name: 'search',
        description: 'Searches the web '.repeat(10),
        parameters: { type: 'object' },
      },
    ];
    const withExtras = await provider.prepare('c', history, {
      systemPrompts: ['You are a careful assistant. '.repeat(5)],
      tools,
    });
    expect(withExtras.length).toBeLessThan(plain.length);
  });

  it('counts a conversation’s texts once across turns, each of which reads its history anew', async () => {
    const counted: string[] = [];
    const provider = new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
      maxTokens: 300,
      counter: (text) => (counted.push(text), countTokens(text)),
    });
    const history = turns(30);
    const window = await provider.prepare('c', history);
    const once = counted.length;
    expect(once).toBeGreaterThan(0);
    // The next turn: the same messages as new objects (read again from the store), one more.
    const next = [...structuredClone(history), ...turns(31).slice(30)];
    expect(await provider.prepare('c', structuredClone(history))).toEqual(window);
    expect(counted).toHaveLength(once);
    const nextWindow = await provider.prepare('c', next);
    expect(nextWindow.at(-1)).toEqual(next.at(-1));
    expect(counted.slice(once)).toEqual([next.at(-1)!.content]);
    // Another conversation holding the same texts counts them itself.
    await provider.prepare('other', structuredClone(history));
    expect(counted.length).toBeGreaterThan(once + 1);
  });

  it('counts images and files at their configured cost, text parts by the tokenizer', async () => {
    const counter = (text: string) => text.length;
    const history: ChatMessage[] = [
      { id: 'u1', role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] },
      { id: 'a1', role: 'assistant', content: 'cat' },
      {
        id: 'u2',
        role: 'user',
        content: [
          { type: 'text', text: 'and' },
          { type: 'file', url: 'https://x.test/a.pdf', mediaType: 'application/pdf' },
        ],
      },
    ];
    const sent = async (maxTokens: number, partTokens?: { image?: number; file?: number }) =>
      (
        await new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
          maxTokens,
          counter,
          partTokens,
        }).prepare('c', history)
      ).map((m) => m.id);
    // Defaults: an image 1,500, a file 3,000, plus 4 per message.
    expect(await sent(3_000 + 3 + 4 + 3 + 4 + 1_500 + 4)).toEqual(['u1', 'a1', 'u2']);
    expect(await sent(3_000 + 3 + 4 + 3 + 4 + 1_500 + 3)).toEqual(['a1', 'u2']);
    expect(await sent(10 + 3 + 4 + 3 + 4 + 20 + 4, { image: 20, file: 10 })).toEqual([
      'u1',
      'a1',
      'u2',
    ]);
    expect(
      () =>
        new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
          maxTokens: 10,
          partTokens: { image: -1 },
        }),
    ).toThrow('partTokens.image');
  });

  it('keeps the rules when nothing fits: the current user message and its tool round go', async () => {
    const provider = new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
      maxTokens: 5,
      counter: (text) => text.length,
    });
    const out = await provider.prepare('c', [
      ...turns(4),
      { id: 'u', role: 'user', content: 'now' },
      {
        id: 'a',
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't', name: 'f', arguments: '{}' }],
      },
      { id: 'r', role: 'tool', content: 'x', toolCallId: 't' },
    ]);
    expect(out.map((m) => m.id)).toEqual(['u', 'a', 'r']);
  });

  it('works with gpt-tokenizer 3 and 4 (the supported majors): the same count, the same window', async () => {
    const v3 = (await import('gpt-tokenizer-v3')) as { countTokens: (text: string) => number };
    const history = turns(30);
    const loaded = await new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
      maxTokens: 300,
    }).prepare('c', history);
    const withV3 = await new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), {
      maxTokens: 300,
      counter: v3.countTokens,
    }).prepare('c', history);
    expect(v3.countTokens('Hello, wörld! 🦄')).toBe(countTokens('Hello, wörld! 🦄'));
    expect(withV3).toEqual(loaded);
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(
      () => new TokenBudgetMemoryProvider(new InMemoryChatMemoryStore(), { maxTokens: 0 }),
    ).toThrow(InvalidArgumentError);
  });
});

describe('SummarizingMemoryProvider', () => {
  it('folds what falls out of the window into a summary, recomputed only when more falls out', async () => {
    const llm = new ScriptedLlm([{ content: 'S1' }, { content: 'S2' }]);
    const provider = new SummarizingMemoryProvider(new InMemoryChatMemoryStore(), {
      window: 2,
      llm,
    });
    const history = [{ role: 'system' as const, content: 'sys' }, ...turns(5)];
    const first = await provider.prepare('c', history);
    expect(first.map((m) => m.content?.slice(0, 12))).toEqual([
      'sys',
      `${SUMMARY_PREFIX}S1`.slice(0, 12),
      'message 3 lo',
      'message 4 lo',
    ]);
    expect(first[1]!.content).toBe(`${SUMMARY_PREFIX}S1`);
    expect(llm.calls[0]!.messages[1]!.content).toContain('message 0');
    expect(llm.calls[0]!.messages[1]!.content).toContain('message 2');
    await provider.prepare('c', history);
    expect(llm.calls).toHaveLength(1);
    const longer = [...history, ...turns(7).slice(5)];
    const second = await provider.prepare('c', longer);
    expect(second[1]!.content).toBe(`${SUMMARY_PREFIX}S2`);
    const request = llm.calls[1]!.messages[1]!.content!;
    expect(request).toContain('Summary so far:\nS1');
    expect(request).toContain('message 3');
    expect(request).not.toContain('message 2');
  });

  it('folds a call with its results, and falls back to the plain window when the model fails', async () => {
    const llm = new ScriptedLlm([{ fail: new Error('model down') }]);
    const provider = new SummarizingMemoryProvider(new InMemoryChatMemoryStore(), {
      window: 1,
      llm,
    });
    const history: ChatMessage[] = [
      {
        id: 'a',
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't', name: 'f', arguments: '{}' }],
      },
      { id: 'r', role: 'tool', content: 'result', toolCallId: 't' },
      { id: 'b', role: 'assistant', content: 'after' },
    ];
    const out = await provider.prepare('c', history);
    expect(out.map((m) => m.id)).toEqual(['b']);
    expect(llm.calls[0]!.messages[1]!.content).toBe('assistant: [calls f({})]\ntool t: result');
  });
});

describe('MemoryProviderModule', () => {
  let moduleRef: TestingModule | undefined;
  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
  });

  it('provides each policy on a ChatMemoryModule store, default and named', async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        ChatMemoryModule.forRoot({ backend: 'memory', name: 'other' }),
        MemoryProviderModule.forRoot({ window: 3 }),
        MemoryProviderModule.forRoot({
          policy: 'token-budget',
          maxTokens: 100,
          store: 'other',
          name: 'budget',
        }),
        MemoryProviderModule.forRootAsync({
          useFactory: () => ({
            policy: 'summarizing' as const,
            window: 4,
            llm: { provider: 'echo' as const },
          }),
          name: 'summary',
        }),
      ],
    }).compile();
    await moduleRef.init();
    expect(moduleRef.get<MemoryProvider>(MEMORY_PROVIDER)).toBeInstanceOf(DefaultMemoryProvider);
    expect(moduleRef.get<DefaultMemoryProvider>(MEMORY_PROVIDER).window).toBe(3);
    expect(moduleRef.get(getMemoryProviderToken('budget'))).toBeInstanceOf(
      TokenBudgetMemoryProvider,
    );
    expect(moduleRef.get(getMemoryProviderToken('summary'))).toBeInstanceOf(
      SummarizingMemoryProvider,
    );
  });

  it('fails bootstrap without the chat store it needs, or with a bad policy', async () => {
    const boot = (options: object) =>
      rejectionOf(
        Test.createTestingModule({
          imports: [MemoryProviderModule.forRoot(options as never)],
        })
          .compile()
          .then((moduleRef) => moduleRef.init()),
      );
    expect(await boot({ window: 3 })).toBeInstanceOf(InvalidModuleOptionsError);
    expect(await boot({ policy: 'fancy' })).toBeInstanceOf(InvalidModuleOptionsError);
  });
});
