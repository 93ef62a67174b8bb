import { afterEach, describe, expect, it } from '@jest/globals';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import {
  LONGTERM_MEMORY_STORE,
  LONGTERM_BACKEND,
} from '../../src/modules/longterm/longterm.constants.js';
import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { Test } from '@nestjs/testing';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import { AgentService } from '../../src/modules/agent/agent.service.js';
import { InMemoryLongtermStore } from '../../src/modules/longterm/backends/in-memory.longterm.store.js';
import { InMemorySeqCounter } from '../../src/modules/longterm/backends/seq-counters.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';
import { waitFor } from '../support/wait-for.js';

/** A tool that writes what the model asked it to remember: from replay-stable inputs only. */
function rememberTool(calls: { count: number }): KernelToolDefinition {
  return {
    name: 'remember',
    description: 'Saves a fact to long-term memory',
    parameters: {
      type: 'object',
      properties: { key: { type: 'string' }, fact: { type: 'string' } },
      required: ['key', 'fact'],
    },
    handler: ({ key, fact }, context) => {
      calls.count += 1;
      context.longterm!.save(String(key), { fact, by: context.runId });
      return 'saved';
    },
  };
}

const rememberRound = (key: string, fact: string) => ({
  toolCalls: [{ id: `save-${key}`, name: 'remember', arguments: JSON.stringify({ key, fact }) }],
});

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('agent with long-term memory (PostgreSQL)', () => {
  const imports = () => [
    ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL }),
    LongtermMemoryModule.forRoot({ uri: TEST_POSTGRES_URL, sweep: false }),
  ];
  const entity = () => `agent-lt-${Math.random().toString(36).slice(2)}`;

  it('stages through the tool context and flushes after the commit with the run’s seq', async () => {
    const calls = { count: 0 };
    const llm = new ScriptedLlm([rememberRound('profile/name', 'Ada'), { content: 'Noted.' }]);
    harness = await bootAgent({ llm, tools: [rememberTool(calls)] }, imports());
    const entityId = entity();
    const result = await harness.agent.run({
      conversationId: `${entityId}-c`,
      entityId,
      message: 'I am Ada',
      runId: `${entityId}-run`,
    });
    expect(result.longterm).toEqual({ flushed: 1, refused: 0 });
    const stored = await harness.moduleRef
      .get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE)
      .load(entityId, 'profile/name');
    expect(stored).toMatchObject({ value: { by: `${entityId}-run`, fact: 'Ada' }, seq: 1 });
  });

  it('the retry-determinism gate: a commit that fails once, a queued retry, one row with the same bytes', async () => {
    const backing = new InMemoryChatMemoryStore();
    let failCommit = true;
    const flaky = new (class extends InMemoryChatMemoryStore {
      override async add(...args: Parameters<ChatMemoryStore['add']>) {
        if (failCommit) {
          failCommit = false;
          throw new Error('commit failed once');
        }
        return backing.add(...args);
      }
      override get(id: string) {
        return backing.get(id);
      }
    })();
    const calls = { count: 0 };
    const llm = new ScriptedLlm([rememberRound('case/1', 'first fact'), { content: 'Saved.' }]);
    harness = await bootAgent(
      {
        llm,
        tools: [rememberTool(calls)],
        memory: { store: flaky },
        queue: { driver: 'inline', attempts: 3, backoffMs: 10 },
      },
      [LongtermMemoryModule.forRoot({ uri: TEST_POSTGRES_URL, sweep: false })],
    );
    const entityId = entity();
    const longterm = harness.moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE);
    const { runId } = await harness.agent.submit({
      conversationId: `${entityId}-c`,
      entityId,
      message: 'remember this',
    });
    const record = await waitFor(
      () => harness!.agent.getRun(runId),
      (r) => r?.status === 'completed',
      10_000,
      'the run',
    );
    expect(record?.result?.longterm).toEqual({ flushed: 1, refused: 0 });
    expect(record?.attempts).toBe(2);
    expect(calls.count).toBe(1);
    expect(llm.calls).toHaveLength(2);
    // The run's steps: the second attempt served every step from the run cache.
    const recorded = await harness.agent.runSteps(runId);
    expect(recorded?.steps).toEqual([
      expect.objectContaining({ type: 'model', scope: 0, round: 0, replayed: true }),
      expect.objectContaining({
        type: 'tool',
        round: 0,
        index: 0,
        replayed: true,
        call: expect.objectContaining({ id: 'save-case/1', name: 'remember' }),
        result: 'saved',
        staged: [{ key: 'case/1', value: { by: runId, fact: 'first fact' } }],
      }),
      expect.objectContaining({ type: 'model', round: 1, replayed: true, content: 'Saved.' }),
    ]);
    expect(recorded?.longterm).toEqual({ entityId, seq: 1, flushed: ['case/1'], refused: [] });
    const rows = await longterm.search(entityId, '', 10);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      key: 'case/1',
      value: { by: runId, fact: 'first fact' },
      seq: 1,
    });
  });

  it('fails the run when the flush fails; the queued retry re-flushes the same bytes once', async () => {
    const store = new InMemoryLongtermStore();
    const flushes: string[] = [];
    let failFlush = true;
    const failingOnce = new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'saveMany') return Reflect.get(target, property, receiver) as unknown;
        return async (rows: Parameters<LongtermMemoryStore['saveMany']>[0]) => {
          flushes.push(JSON.stringify(rows));
          if (failFlush) {
            failFlush = false;
            throw new Error('long-term database unreachable');
          }
          return target.saveMany(rows);
        };
      },
    });
    const calls = { count: 0 };
    const llm = new ScriptedLlm([rememberRound('case/7', 'a fact'), { content: 'Saved.' }]);
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
        AgentModule.forRoot({
          llm,
          tools: [rememberTool(calls)],
          queue: { driver: 'inline', attempts: 3, backoffMs: 10 },
        }),
      ],
    })
      .overrideProvider(LONGTERM_BACKEND)
      .useValue({
        value: { store: failingOnce, counter: new InMemorySeqCounter() },
        release: async () => undefined,
      })
      .compile();
    await moduleRef.init();
    try {
      const agent = moduleRef.get(AgentService);
      const entityId = entity();
      const { runId } = await agent.submit({
        conversationId: `${entityId}-c`,
        entityId,
        message: 'remember',
      });
      const record = await waitFor(
        () => agent.getRun(runId),
        (r) => r?.status === 'completed',
        10_000,
        'the run',
      );
      expect(record?.result?.longterm).toEqual({ flushed: 1, refused: 0 });
      expect(flushes).toHaveLength(2);
      expect(flushes[1]).toBe(flushes[0]);
      expect(calls.count).toBe(1);
      expect(await moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version(`${entityId}-c`)).toBe(
        4,
      );
      expect(await store.search(entityId, '', 10)).toHaveLength(1);
    } finally {
      await moduleRef.close();
    }
  });

  it('flushes nothing when the turn fails, and reports refused (stale) rows', async () => {
    const calls = { count: 0 };
    const llm = new ScriptedLlm([
      rememberRound('k', 'never written'),
      { fail: new Error('model crashed') },
    ]);
    harness = await bootAgent({ llm, tools: [rememberTool(calls)] }, imports());
    const entityId = entity();
    const longterm = harness.moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE);
    expect(
      String(
        await rejectionOf(
          harness.agent.run({ conversationId: `${entityId}-c`, entityId, message: 'x' }),
        ),
      ),
    ).toContain('model crashed');
    expect(calls.count).toBe(1);
    expect(await longterm.load(entityId, 'k')).toBeNull();
    expect(
      await harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version(`${entityId}-c`),
    ).toBe(0);

    await longterm.save({ entityId, key: 'k', value: 'newer', seq: 1_000 });
    llm.enqueue(rememberRound('k', 'stale'), { content: 'ok' });
    const result = await harness.agent.run({
      conversationId: `${entityId}-c`,
      entityId,
      message: 'y',
    });
    expect(result.longterm).toEqual({ flushed: 0, refused: 1 });
    expect((await longterm.load(entityId, 'k'))?.value).toBe('newer');
    const recorded = await harness.agent.runSteps(result.runId);
    expect(recorded?.longterm).toMatchObject({ entityId, flushed: [], refused: ['k'] });
    expect(recorded?.steps.map((step) => [step.type, step.round, step.replayed])).toEqual([
      ['model', 0, false],
      ['tool', 0, false],
      ['model', 1, false],
    ]);
    expect((await harness.agent.getRun(result.runId))?.attempts).toBe(1);
  });
});

describe('context.longterm when the run cannot use long-term memory', () => {
  it.each([
    [
      'the tier is off',
      [LongtermMemoryModule.forRoot({})],
      'e-1',
      /disabled.*LongtermMemoryModule\.forRoot\(\{ uri \}\)/,
    ],
    ['the tier is absent', [], 'e-1', /disabled/],
    [
      'the run has no entityId',
      [LongtermMemoryModule.forRoot({ uri: 'memory://' })],
      undefined,
      /no entityId/,
    ],
  ])('gives the tool a clear error when %s', async (_case, extra, entityId, message) => {
    const llm = new ScriptedLlm([rememberRound('k', 'fact'), { content: 'ok' }]);
    harness = await bootAgent({ llm, tools: [rememberTool({ count: 0 })] }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      ...extra,
    ]);
    const result = await harness.agent.run({
      conversationId: `lt-off-${Date.now()}`,
      entityId,
      message: 'remember',
    });
    expect(result.toolCalls[0]!.error).toMatch(message);
    expect(result.toolCalls[0]!.error).not.toMatch(/TypeError|undefined/);
    expect(result.longterm).toEqual({ flushed: 0, refused: 0 });
  });
});
