import { afterEach, describe, expect, it } from '@jest/globals';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { DefaultMemoryProvider } from '../../src/modules/memory-provider/providers/default.memory-provider.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { agentBackends, countingTool } from '../support/agent-backends.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const backends = agentBackends('agent');

const toolRound = { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] };
let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe.each(backends)('agent turns on %s', (_name, chat, runs) => {
  const conversation = () => `agent-${Math.random().toString(36).slice(2)}`;

  it('runs a turn with a tool and commits it whole, ids runId:i', async () => {
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([toolRound, { content: 'Found it.' }]);
    harness = await bootAgent(
      { llm, tools: [countingTool(counter)], systemPrompt: 'Be brief.', runs },
      [ChatMemoryModule.forRoot(chat)],
    );
    const store = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const conversationId = conversation();
    await store.add(conversationId, [{ id: 'old', role: 'user', content: 'earlier' }]);
    const result = await harness.agent.run({
      conversationId,
      message: 'look x up',
      runId: `${conversationId}-r1`,
    });
    expect(result.reply.content).toBe('Found it.');
    expect(result.version).toBe(5);
    expect(result.messages.map((m) => m.id)).toEqual(
      [0, 1, 2, 3].map((i) => `${conversationId}-r1:${i}`),
    );
    expect(result.toolCalls).toEqual([
      { id: 'call_1', name: 'lookup', arguments: '{"q":"x"}', result: { answer: 'about x' } },
    ]);
    expect((await store.get(conversationId)).slice(1)).toEqual(result.messages);
    expect(llm.calls[0]!.messages.map((m) => m.content)).toEqual([
      'Be brief.',
      'earlier',
      'look x up',
    ]);
    expect(await harness.agent.getRun(`${conversationId}-r1`)).toMatchObject({
      status: 'completed',
      result: { version: 5 },
    });
  });

  it('stores nothing when any step fails, then a retry of the run replays what it recorded', async () => {
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([toolRound, { fail: new LlmResponseError('test', 503, 'busy') }]);
    harness = await bootAgent({ llm, tools: [countingTool(counter)], runs }, [
      ChatMemoryModule.forRoot(chat),
    ]);
    const store = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const conversationId = conversation();
    const runId = `${conversationId}-r`;
    expect(
      await rejectionOf(harness.agent.run({ conversationId, message: 'go', runId })),
    ).toBeInstanceOf(LlmResponseError);
    expect(await store.version(conversationId)).toBe(0);
    expect(await harness.agent.getRun(runId)).toMatchObject({
      status: 'failed',
      error: { name: 'LlmResponseError' },
    });
    llm.enqueue({ content: 'done' });
    const retried = await harness.agent.run({ conversationId, message: 'go', runId });
    // The model's first answer and the tool step were replayed, not redone.
    expect(llm.calls).toHaveLength(3);
    expect(counter.calls).toBe(1);
    expect(retried.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(await store.get(conversationId)).toEqual(retried.messages);
    // A run that completed answers from its record; the store is untouched.
    expect(await harness.agent.run({ conversationId, message: 'go', runId })).toEqual(retried);
    expect(await store.version(conversationId)).toBe(4);
  });
});

describe('agent failures store nothing', () => {
  it('at the first model call, in a tool round, and on abort', async () => {
    const controller = new AbortController();
    const abortingTool: KernelToolDefinition = {
      name: 'lookup',
      description: 'aborts the run',
      parameters: { type: 'object' },
      handler: () => controller.abort(new Error('client gone')),
    };
    const llm = new ScriptedLlm([
      { fail: new LlmResponseError('test', 400, 'bad') },
      toolRound,
      { content: 'never' },
    ]);
    harness = await bootAgent({ llm, tools: [abortingTool] }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    const store = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    expect(
      await rejectionOf(harness.agent.run({ conversationId: 'x', message: 'a' })),
    ).toBeInstanceOf(LlmResponseError);
    expect(
      String(
        await rejectionOf(
          harness.agent.run({ conversationId: 'x', message: 'b', signal: controller.signal }),
        ),
      ),
    ).toContain('aborted');
    expect(await store.version('x')).toBe(0);
  });
});

describe('agent memory forms', () => {
  it('false keeps nothing; { window } trims what is sent; a provider instance is used as is', async () => {
    const llm = new ScriptedLlm([{ content: 'a' }, { content: 'b' }]);
    harness = await bootAgent({ llm, memory: false }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    const result = await harness.agent.run({ conversationId: 'c', message: 'hi' });
    expect(result.version).toBe(0);
    expect(await harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version('c')).toBe(0);
    await harness.close();

    const windowed = new ScriptedLlm([{ content: 'x' }]);
    harness = await bootAgent({ llm: windowed, memory: { window: 2 } }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    const store = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    await store.add(
      'w',
      [1, 2, 3, 4].map((i) => ({
        role: i % 2 ? ('user' as const) : ('assistant' as const),
        content: `m${i}`,
      })),
    );
    await harness.agent.run({ conversationId: 'w', message: 'now' });
    expect(windowed.calls[0]!.messages.map((m) => m.content)).toEqual(['m4', 'now']);
    await harness.close();

    const own = new InMemoryChatMemoryStore();
    const provider = new DefaultMemoryProvider(own, 1);
    const seen = new ScriptedLlm([{ content: 'y' }]);
    harness = await bootAgent({ llm: seen, memory: provider });
    await own.add('p', [{ role: 'user', content: 'old' }]);
    expect((await harness.agent.run({ conversationId: 'p', message: 'new' })).version).toBe(3);
    expect(seen.calls[0]!.messages.map((m) => m.content)).toEqual(['new']);
  });

  it('fails a turn whose commit fails, storing nothing; the retry replays every step and commits once', async () => {
    const backing = new InMemoryChatMemoryStore();
    let failNextAdd = true;
    const flaky = new (class extends InMemoryChatMemoryStore {
      override async add(...args: Parameters<ChatMemoryStore['add']>) {
        if (failNextAdd) {
          failNextAdd = false;
          throw new Error('database went away');
        }
        return backing.add(...args);
      }
      override get(conversationId: string) {
        return backing.get(conversationId);
      }
    })();
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([toolRound, { content: 'ok' }]);
    harness = await bootAgent({ llm, tools: [countingTool(counter)], memory: { store: flaky } });
    expect(
      String(
        await rejectionOf(
          harness.agent.run({ conversationId: 'f', message: 'go', runId: 'commit-fail' }),
        ),
      ),
    ).toContain('went away');
    expect(await backing.version('f')).toBe(0);
    const result = await harness.agent.run({
      conversationId: 'f',
      message: 'go',
      runId: 'commit-fail',
    });
    expect(llm.calls).toHaveLength(2);
    expect(counter.calls).toBe(1);
    expect(await backing.get('f')).toEqual(result.messages);
  });

  it('uses the app’s one default store, or a process-memory one when the app has none', async () => {
    harness = await bootAgent({ llm: new ScriptedLlm([{ content: 'x' }]) });
    const result = await harness.agent.run({ conversationId: 'fallback', message: 'hi' });
    expect(result.version).toBe(2);
  });

  it('rejects a kernel with the memory filter', async () => {
    const { KernelModule } = await import('../../src/modules/kernel/kernel.module.js');
    const { KernelService } = await import('../../src/modules/kernel/kernel.service.js');
    const { memoryFilter } = await import('../../src/modules/kernel/filters/memory.filter.js');
    const { InMemoryChatMemoryStore } =
      await import('../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js');
    const { Test } = await import('@nestjs/testing');
    const { AgentModule } = await import('../../src/modules/agent/agent.module.js');
    const { AgentKernelHasMemoryFilterError } =
      await import('../../src/modules/agent/errors/agent.errors.js');
    const error = await rejectionOf(
      Test.createTestingModule({
        imports: [
          KernelModule.forRoot({
            llm: { provider: 'echo' },
            filters: [memoryFilter(new InMemoryChatMemoryStore())],
            isGlobal: true,
          }),
          AgentModule.forRootAsync({
            inject: [KernelService],
            useFactory: (kernel: InstanceType<typeof KernelService>) => ({ kernel }),
          }),
        ],
      })
        .compile()
        .then((m) => m.init()),
    );
    expect(error).toBeInstanceOf(AgentKernelHasMemoryFilterError);
  });
});

describe('agent streaming and events', () => {
  it('streams tokens and tool events, then the result; a throwing callback never breaks the turn', async () => {
    const seen: string[] = [];
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([toolRound, { content: 'Done it.', tokens: ['Done', ' it.'] }]);
    harness = await bootAgent(
      {
        llm,
        tools: [countingTool(counter)],
        events: {
          onTurnStart: () => seen.push('start'),
          onLlmCall: ({ round }) => seen.push(`llm ${round}`),
          onLlmResult: ({ round, replayed }) =>
            seen.push(`llm result ${round}${replayed ? ' replayed' : ''}`),
          onToolCall: ({ call }) => seen.push(`tool ${call.name}`),
          onToolResult: () => {
            seen.push('tool result');
            throw new Error('a buggy listener');
          },
          onToken: ({ text }) => seen.push(`token ${text}`),
          onTurnEnd: ({ result }) => seen.push(`end ${result.version}`),
        },
      },
      [ChatMemoryModule.forRoot({ backend: 'memory' })],
    );
    const events: string[] = [];
    for await (const event of harness.agent.stream({ conversationId: 's', message: 'go' })) {
      events.push(event.type === 'token' ? `token:${event.text}` : event.type);
    }
    expect(events).toEqual(['tool_call', 'tool_result', 'token:Done', 'token: it.', 'result']);
    expect(seen).toEqual([
      'start',
      'llm 0',
      'llm result 0',
      'tool lookup',
      'tool result',
      'llm 1',
      'token Done',
      'token  it.',
      'llm result 1',
      'end 4',
    ]);
  });
});

describe('agent with working memory', () => {
  it('hands tools the conversation’s scratchpad', async () => {
    const { WorkingMemoryModule } =
      await import('../../src/modules/working-memory/working-memory.module.js');
    const { WorkingMemoryService } =
      await import('../../src/modules/working-memory/working-memory.service.js');
    const note: KernelToolDefinition = {
      name: 'lookup',
      description: 'notes the query',
      parameters: { type: 'object' },
      handler: async (args, context) => {
        await context.workingMemory!.append('queries', args.q);
        return 'noted';
      },
    };
    const llm = new ScriptedLlm([toolRound, { content: 'done' }]);
    harness = await bootAgent({ llm, tools: [note] }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      WorkingMemoryModule.forRoot({ backend: 'memory', sweep: false }),
    ]);
    await harness.agent.run({ conversationId: 'scratch', message: 'go' });
    expect(
      await harness.moduleRef.get(WorkingMemoryService).for('scratch').ring('queries'),
    ).toEqual(['x']);
  });
});
