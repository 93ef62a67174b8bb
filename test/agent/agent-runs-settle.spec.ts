import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lease } from '../../src/common/lease.js';
import { AGENT_RUNS } from '../../src/modules/agent/agent.constants.js';
import type { AgentRuns } from '../../src/modules/agent/agent.providers.js';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;
const LEASE_MS = 300;

/**
 * The agent on in-memory stores, its run store wrapped so a test can make chosen operations fail
 * (a store fault is what these tests are about; the backends themselves are checked in
 * run-store.spec and over HTTP in test/reliability).
 */
async function agentWithFaults(llm: ScriptedLlm, leaseMs = LEASE_MS) {
  harness = await bootAgent({ llm, runLeaseMs: leaseMs }, [
    ChatMemoryModule.forRoot({ backend: 'memory' }),
  ]);
  const runs = harness.moduleRef.get<Lease<AgentRuns>>(AGENT_RUNS).value;
  const store = (runs.records as unknown as { store: RunStore }).store;
  const faults: Array<{
    method: keyof RunStore;
    when: (args: unknown[]) => boolean;
    times: number;
  }> = [];
  for (const method of [
    'putIfAbsent',
    'get',
    'put',
    'replaceIf',
    'addToIndex',
    'addToOrderedIndex',
  ] as const) {
    const original = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      const fault = faults.find((f) => f.method === method && f.times > 0 && f.when(args));
      if (fault) {
        fault.times -= 1;
        throw new Error(`injected ${method} fault`);
      }
      return original(...args);
    };
  }
  const chat = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
  return {
    agent: harness.agent,
    chat,
    fail: (
      method: keyof RunStore,
      times: number,
      when: (args: unknown[]) => boolean = () => true,
    ) => faults.push({ method, when, times }),
  };
}

/** A status write of the given status. */
const writesStatus = (status: string) => (args: unknown[]) =>
  args[1] === 'status' && String(args.at(-1)).includes(`"status":"${status}"`);

describe('every run settles', () => {
  it('records failed when the run fails before the turn begins, and the same key runs it again', async () => {
    const { agent, fail } = await agentWithFaults(new ScriptedLlm([{ content: 'hello' }]));
    const input = { runId: unique('key'), conversationId: unique('c'), message: 'hi' };
    expect(await agent.reserveRun(input)).toBeUndefined();
    fail('addToOrderedIndex', 1); // the run's own ownership check, before anything else
    expect(await rejectionOf(agent.run(input))).toMatchObject({
      message: 'injected addToOrderedIndex fault',
    });
    expect(await agent.getRun(input.runId)).toMatchObject({ status: 'failed' });
    expect(await agent.reserveRun(input)).toBeUndefined(); // a failed run is handed out again
    expect((await agent.run(input)).reply.content).toBe('hello');
    expect(await agent.getRun(input.runId)).toMatchObject({ status: 'completed' });
  });

  it('reports the committed turn, never failed, when its completion cannot be recorded', async () => {
    const { agent, chat, fail } = await agentWithFaults(
      new ScriptedLlm([{ content: 'first' }, { content: 'second' }]),
    );
    const conversationId = unique('c');
    const a = { runId: unique('a'), conversationId, message: 'one' };
    fail('replaceIf', 2, writesStatus('completed')); // passing: the settle tries again
    expect((await agent.run(a)).version).toBe(2);
    expect(await agent.getRun(a.runId)).toMatchObject({ status: 'completed' });

    const b = { runId: unique('b'), conversationId, message: 'two' };
    expect(await agent.reserveRun(b)).toBeUndefined();
    fail('replaceIf', 5, writesStatus('completed')); // lasting: every one of its tries fails
    const result = await agent.run(b);
    expect(result).toMatchObject({ version: 4, reply: { content: 'second' } });
    expect((await agent.getRun(b.runId))?.status).toBe('running'); // never "failed"
    // Its holder let go: once the lease ran out, the same key takes it over and finds it stored.
    await sleep(LEASE_MS + 50);
    expect(await agent.reserveRun(b)).toBeUndefined();
    const again = await agent.run(b);
    expect(again).toMatchObject({ version: 4, reply: { content: 'second' } });
    expect(await agent.getRun(b.runId)).toMatchObject({ status: 'completed' });
    expect((await chat.get(conversationId)).map((m) => m.content)).toEqual([
      'one',
      'first',
      'two',
      'second',
    ]);
  });

  it('locates a turn found already stored by its position, not the conversation’s newest version', async () => {
    const { agent, fail } = await agentWithFaults(
      new ScriptedLlm([{ content: 'x' }, { content: 'y' }]),
    );
    const conversationId = unique('c');
    const x = { runId: unique('x'), conversationId, message: 'one' };
    fail('replaceIf', 5, writesStatus('completed')); // every try of x's completion
    await agent.run(x);
    await agent.run({ runId: unique('y'), conversationId, message: 'two' }); // version 4 now
    await sleep(LEASE_MS + 50);
    expect(await agent.reserveRun(x)).toBeUndefined();
    expect((await agent.run(x)).version).toBe(2);
  });

  it('records a submission that failed as failed without attempts, and the same key queues it again', async () => {
    const { agent, fail } = await agentWithFaults(new ScriptedLlm([{ content: 'queued reply' }]));
    const input = { runId: unique('key'), conversationId: unique('c'), message: 'hi' };
    expect(await agent.reserveRun(input)).toBeUndefined();
    fail('replaceIf', 1, writesStatus('queued'));
    expect(await rejectionOf(agent.submit(input, { reserved: true }))).toBeInstanceOf(Error);
    const failed = await agent.getRun(input.runId);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed?.attempts).toBeUndefined();
    expect(await agent.reserveRun(input)).toBeUndefined();
    await agent.submit(input, { reserved: true });
    for (let i = 0; i < 100 && (await agent.getRun(input.runId))?.status !== 'completed'; i += 1)
      await sleep(20);
    expect(await agent.getRun(input.runId)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('renews the lease while a run goes: a slow turn is never taken over', async () => {
    // A longer lease here: renewed every third of it, a 300 ms lease expired behind a 200 ms stall
    // of a loaded machine's event loop, which is not what this test is about.
    const leaseMs = 1_000;
    const llm = new ScriptedLlm([{ content: 'slow' }]);
    const chat = llm.chat.bind(llm);
    llm.chat = async (request) => {
      await sleep(leaseMs * 3);
      return chat(request);
    };
    const { agent } = await agentWithFaults(llm, leaseMs);
    const input = { runId: unique('slow'), conversationId: unique('c'), message: 'hi' };
    expect(await agent.reserveRun(input)).toBeUndefined();
    const running = agent.run(input);
    await sleep(leaseMs * 2);
    expect(await agent.reserveRun(input)).toMatchObject({ status: 'running' });
    await running;
    expect(await agent.getRun(input.runId)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
