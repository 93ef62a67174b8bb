import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { AgentModuleOptions } from '../../src/modules/agent/agent.options.js';
import { DefaultMemoryProvider } from '../../src/modules/memory-provider/providers/default.memory-provider.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_REDIS_URL, tempDir } from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const history = [
  { id: 'h1', role: 'user' as const, content: 'shared u1' },
  { id: 'h2', role: 'assistant' as const, content: 'shared a1' },
];
const otherHistory = [
  { id: 'o1', role: 'user' as const, content: 'other u1' },
  { id: 'o2', role: 'assistant' as const, content: 'other a1' },
];

describe('AgentModule memory forms, by what the model receives', () => {
  const conversationId = 'forms';
  const other = new InMemoryChatMemoryStore();
  const forms: Array<[string, () => AgentModuleOptions['memory'], string[], boolean]> = [
    ['absent', () => undefined, ['shared u1', 'shared a1', 'now'], true],
    ["'default'", () => 'default', ['shared u1', 'shared a1', 'now'], true],
    ['{ window: 1 }', () => ({ window: 1 }), ['now'], true],
    ['{ store }', () => ({ store: other }), ['other u1', 'other a1', 'now'], false],
    ['{ store, window: 1 }', () => ({ store: other, window: 1 }), ['now'], false],
    ['{ maxTokens: 12 }', () => ({ maxTokens: 12 }), ['shared a1', 'now'], true],
    ['{ maxTokens: 1_000 }', () => ({ maxTokens: 1_000 }), ['shared u1', 'shared a1', 'now'], true],
    ['{ store, maxTokens: 6 }', () => ({ store: other, maxTokens: 6 }), ['now'], false],
    ['a MemoryProvider', () => new DefaultMemoryProvider(other, 2), ['other a1', 'now'], false],
    ['false', () => false, ['now'], false],
    ["'none'", () => 'none', ['now'], false],
  ];

  it.each(forms)('%s', async (_label, memory, sent, storesInShared) => {
    await other.clear(conversationId);
    await other.add(conversationId, otherHistory);
    const llm = new ScriptedLlm([{ content: 'ok' }]);
    harness = await bootAgent({ llm, memory: memory() }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    const shared = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    await shared.add(conversationId, history);
    await harness.agent.run({ conversationId, message: 'now' });
    expect(llm.calls[0]!.messages.map((m) => m.content)).toEqual(sent);
    expect(await shared.version(conversationId)).toBe(storesInShared ? 4 : 2);
  });
});

describe('AgentModule options are validated at bootstrap', () => {
  const llm = { provider: 'echo' as const };
  it.each([
    [{ llm, memory: null }, 'memory', 'got null'],
    [{ llm, memory: { window: undefined } }, 'memory.window', 'positive integer'],
    [{ llm, memory: { window: 0 } }, 'memory.window', 'positive integer'],
    [{ llm, memory: { windw: 2 } }, 'memory.windw', 'did you mean "memory.window"?'],
    [{ llm, memory: 'all' }, 'memory', "'default', 'none'"],
    [{ llm, memory: { store: {} } }, 'memory.store', 'ChatMemoryStore'],
    [{ llm, memory: { maxTokens: 0 } }, 'memory.maxTokens', 'positive integer'],
    [
      { llm, memory: { maxTokens: 10, window: 2 } },
      'memory.maxTokens',
      'either window or maxTokens',
    ],
    [{ llm, systemPromt: 'hi' }, 'systemPromt', 'did you mean "systemPrompt"?'],
    [{ llm, maxToolIteration: 3 }, 'maxToolIteration', 'did you mean "maxToolIterations"?'],
    [{ llm, isglobal: true }, 'isglobal', 'did you mean "isGlobal"?'],
    [{ llm: { provider: 'openai', modle: 'x' } }, 'llm.modle', 'did you mean "llm.model"?'],
    [{ llm, conflictPolicy: 'merge' }, 'conflictPolicy', '"reject", "retry"'],
    [{ llm, runs: { backend: 'sqlite', paht: 'x' } }, 'runs.paht', 'did you mean "runs.path"?'],
    [
      { llm, queue: { driver: 'bull', redisUrl: TEST_REDIS_URL, lockDuration: 1 } },
      'queue.lockDuration',
      'lockDurationMs',
    ],
    [{ llm, queue: { driver: 'inline', attempts: 0 } }, 'queue.attempts', 'integer'],
    [
      { llm, queue: { driver: 'bull', redisUrl: TEST_REDIS_URL, stalledIntervalMs: 0 } },
      'queue.stalledIntervalMs',
      'integer',
    ],
    [{ memory: false }, 'llm', 'is required'],
  ])('refuses %j naming %s', async (options, option, hint) => {
    const error = await rejectionOf(bootAgent(options as AgentModuleOptions));
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error).toMatchObject({ moduleName: 'AgentModule', option });
    expect((error as Error).message).toContain(hint);
  });

  it('never shows an API key in an error', async () => {
    const error = await rejectionOf(
      bootAgent({ llm: { provider: 'OpenAI', apiKey: 'sk-secret-123' } } as never),
    );
    expect((error as Error).message).toContain('provider "OpenAI"');
    expect((error as Error).message).not.toContain('sk-secret-123');
  });
});

describe('the run store defaults to the chat store’s backend', () => {
  it('keeps run records across a restart on a SQLite chat store', async () => {
    const path = join(tempDir(), 'runs-default.sqlite');
    const boot = () =>
      bootAgent({ llm: new ScriptedLlm([{ content: 'stored' }]) }, [
        ChatMemoryModule.forRoot({ backend: 'sqlite', path }),
      ]);
    harness = await boot();
    await harness.agent.run({ conversationId: 'c', message: 'hi', runId: 'run-survives' });
    await harness.close();
    harness = await boot();
    expect(await harness.agent.getRun('run-survives')).toMatchObject({ status: 'completed' });
  });

  it('says which runs getRun can see', async () => {
    harness = await bootAgent({ llm: new ScriptedLlm([]) }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    expect(harness.agent.runsVisibility).toBe('process');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      expect(await harness.agent.getRun('elsewhere')).toBeUndefined();
      expect(String(warn.mock.calls[0]?.[0])).toContain('runs of other processes are not visible');
    } finally {
      warn.mockRestore();
    }
    await harness.close();
    harness = await bootAgent({ llm: new ScriptedLlm([]) }, [
      ChatMemoryModule.forRoot({ backend: 'sqlite', path: ':memory:' }),
    ]);
    expect(harness.agent.runsVisibility).toBe('shared');
  });

  it('refuses a Bull queue whose run store would be process memory', async () => {
    const error = await rejectionOf(
      bootAgent(
        { llm: { provider: 'echo' }, queue: { driver: 'bull', redisUrl: TEST_REDIS_URL } },
        [ChatMemoryModule.forRoot({ backend: 'memory' })],
      ),
    );
    expect(error).toMatchObject({ moduleName: 'AgentModule', option: 'runs' });
  });
});
