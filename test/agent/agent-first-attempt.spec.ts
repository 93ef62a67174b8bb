import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { AGENT_RUNS } from '../../src/modules/agent/agent.constants.js';
import type { AgentRuns } from '../../src/modules/agent/agent.providers.js';
import type { LlmResponse } from '../../src/modules/llm/interfaces/llm.interface.js';
import { LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { agentBackends, countingTool } from '../support/agent-backends.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const backends = agentBackends('first-attempt');

const toolRound = { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] };

/** The step keys (model answers, tool steps, the recall block, the seq and time) read. */
function stepReads(get: { mock: { calls: ReadonlyArray<readonly unknown[]> } }): string[] {
  return get.mock.calls
    .map((call) => String(call[1]))
    .filter((key) => /^(llm|tool):|^(recall|longterm:seq|createdAt)$/.test(key));
}

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe.each(backends)("a run's first attempt on %s", (_name, chat, runs) => {
  const conversation = () => `first-${Math.random().toString(36).slice(2)}`;

  /** An agent with the counting tool; its run store, that store's `get` watched, a fresh run. */
  const bootWithTool = async (llm: ScriptedLlm, counter: { calls: number }) => {
    harness = await bootAgent({ llm, tools: [countingTool(counter)], runs }, [
      ChatMemoryModule.forRoot(chat),
    ]);
    const { store } = harness.moduleRef.get<{ value: AgentRuns }>(AGENT_RUNS).value;
    const get = jest.spyOn(store, 'get');
    const conversationId = conversation();
    return { agent: harness.agent, store, get, conversationId, runId: `${conversationId}-r` };
  };

  it('stores its model steps without reading them first, reads its tool steps; the next attempt reads and replays them', async () => {
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([toolRound, { fail: new LlmResponseError('test', 503, 'busy') }]);
    const { agent, get, conversationId, runId } = await bootWithTool(llm, counter);
    expect(await rejectionOf(agent.run({ conversationId, message: 'go', runId }))).toBeInstanceOf(
      LlmResponseError,
    );
    // A tool step is read first all the same: a call recorded by another attempt never runs twice.
    expect(stepReads(get)).toEqual(['tool:0:0:0']);

    get.mockClear();
    llm.enqueue({ content: 'done' });
    const retried = await agent.run({ conversationId, message: 'go', runId });
    expect(stepReads(get)).toEqual(['llm:0:0', 'tool:0:0:0', 'llm:0:1']);
    // The first answer and the tool step were replayed: two model calls before, one now.
    expect(llm.calls).toHaveLength(3);
    expect(counter.calls).toBe(1);
    expect(retried.reply.content).toBe('done');
  });

  it("reads none of a run's other steps either: its recall block, its long-term seq and time", async () => {
    const llm = new ScriptedLlm([{ fail: new LlmResponseError('test', 503, 'busy') }]);
    harness = await bootAgent({ llm, runs, recall: true }, [
      ChatMemoryModule.forRoot(chat),
      LongtermMemoryModule.forRoot({
        uri: 'memory://',
        sweep: false,
        recall: { embedder: new HashingEmbeddingModel(), backfill: false },
      }),
    ]);
    const { store } = harness.moduleRef.get<{ value: AgentRuns }>(AGENT_RUNS).value;
    const get = jest.spyOn(store, 'get');
    const conversationId = conversation();
    const turn = {
      conversationId,
      entityId: `${conversationId}-e`,
      message: 'go',
      runId: `${conversationId}-r`,
    };
    await rejectionOf(harness.agent.run(turn));
    expect(stepReads(get)).toEqual([]);
    get.mockClear();
    llm.enqueue({ content: 'done' });
    await harness.agent.run(turn);
    expect(stepReads(get).sort()).toEqual(
      ['createdAt', 'llm:0:0', 'longterm:seq', 'recall'].sort(),
    );
  });

  it('stores its base version with its first step, in one store call', async () => {
    const llm = new ScriptedLlm([{ content: 'hi' }]);
    const { agent, store, conversationId, runId } = await bootWithTool(llm, { calls: 0 });
    const putIfAbsent = jest.spyOn(store, 'putIfAbsent');
    const guarded = jest.spyOn(store, 'putIfAbsentGuarded');
    await agent.run({ conversationId, message: 'go', runId });
    expect(putIfAbsent.mock.calls.map((call) => call[1])).not.toContain('base:0');
    expect(guarded.mock.calls.map((call) => [call[1], call[2][0]])).toEqual([
      [['base:0', '0'], 'llm:0:0'],
    ]);
    expect(await store.get(runId, 'base:0')).toBe('0');
  });

  it('begins again, reading first, when another attempt stored a different base first', async () => {
    const llm = new ScriptedLlm([
      { content: 'earlier reply' },
      { content: 'on the newer history' },
      { content: 'on the base stored first' },
      { content: 'after the conflict' },
    ]);
    harness = await bootAgent({ llm, runs, conflictPolicy: 'retry' }, [
      ChatMemoryModule.forRoot(chat),
    ]);
    const { store } = harness.moduleRef.get<{ value: AgentRuns }>(AGENT_RUNS).value;
    const conversationId = conversation();
    const runId = `${conversationId}-r`;
    // Another attempt of the run (a takeover) began when the conversation was empty; then another
    // turn committed.
    await store.putIfAbsent(runId, 'base:0', '0');
    await harness.agent.run({ conversationId, message: 'earlier' });
    const result = await harness.agent.run({ conversationId, message: 'go', runId });
    const sawEarlier = (call: number) =>
      llm.calls[call]!.messages.some((message) => message.content === 'earlier');
    // Its answer on the newer history was not stored under the older base: the scope began again
    // from the stored base (without the earlier turn), whose commit then met that turn.
    expect([1, 2, 3].map(sawEarlier)).toEqual([true, false, true]);
    expect(JSON.parse((await store.get(runId, 'llm:0:0'))!).message.content).toBe(
      'on the base stored first',
    );
    expect(result.reply.content).toBe('after the conflict');
    expect(result.version).toBe(4);
  });

  it('begins again from the newest scope the overtaking attempt recorded, and answers its committed turn', async () => {
    const llm = new ScriptedLlm([{ content: 'earlier reply' }, { content: 'discarded' }]);
    harness = await bootAgent({ llm, runs, conflictPolicy: 'retry' }, [
      ChatMemoryModule.forRoot(chat),
    ]);
    const { store } = harness.moduleRef.get<{ value: AgentRuns }>(AGENT_RUNS).value;
    const chatStore = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const conversationId = conversation();
    const runId = `${conversationId}-r`;
    const answer = (content: string): string =>
      JSON.stringify({
        message: { role: 'assistant', content },
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      } satisfies LlmResponse);
    // The overtaking attempt began on the empty conversation, met the earlier turn at its commit,
    // and committed its turn in its conflict retry's scope, from version 2.
    await store.putIfAbsent(runId, 'base:0', '0');
    await store.putIfAbsent(runId, 'llm:0:0', answer('theirs at scope 0'));
    await harness.agent.run({ conversationId, message: 'earlier' });
    await store.putIfAbsent(runId, 'base:1', '2');
    await store.putIfAbsent(runId, 'llm:1:0', answer('theirs at scope 1'));
    await chatStore.add(conversationId, [
      { id: `${runId}:0`, role: 'user', content: 'go' },
      { id: `${runId}:1`, role: 'assistant', content: 'theirs at scope 1' },
    ]);
    const result = await harness.agent.run({ conversationId, message: 'go', runId });
    expect(result.reply.content).toBe('theirs at scope 1');
    expect(result.version).toBe(4);
    expect((await chatStore.get(conversationId)).map((message) => message.content)).toEqual([
      'earlier',
      'earlier reply',
      'go',
      'theirs at scope 1',
    ]);
    // Its own answer (on the four-message history) was computed, then dropped.
    expect(llm.calls).toHaveLength(2);
  });

  it('continues with steps another attempt stored first, and reads every later step first', async () => {
    const counter = { calls: 0 };
    const llm = new ScriptedLlm([{ content: 'computed now' }, { content: 'done' }]);
    const { agent, store, get, conversationId, runId } = await bootWithTool(llm, counter);
    // What an attempt running at the same time (a takeover of a stalled process) recorded first:
    // its model answer (a tool call) and that call's result.
    const answer: LlmResponse = {
      message: { role: 'assistant', content: '', toolCalls: toolRound.toolCalls },
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    };
    await store.putIfAbsent(runId, 'llm:0:0', JSON.stringify(answer));
    await store.putIfAbsent(runId, 'tool:0:0:0', JSON.stringify({ result: { answer: 'theirs' } }));
    const result = await agent.run({ conversationId, message: 'go', runId });
    // Its own first answer lost the race: it went on with the recorded tool call, whose result it
    // read (the tool did not run), and read the next model step before computing it.
    expect(counter.calls).toBe(0);
    expect(result.toolCalls).toEqual([{ ...toolRound.toolCalls[0], result: { answer: 'theirs' } }]);
    expect(stepReads(get)).toEqual(['tool:0:0:0', 'llm:0:1']);
    expect(result.reply.content).toBe('done');
    expect(llm.calls).toHaveLength(2);
  });
});
