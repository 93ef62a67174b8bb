import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import type { FormedMemory } from '../../src/modules/formation/formed-memory.interface.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { AGENT_RUNS } from '../../src/modules/agent/agent.constants.js';
import type { AgentRuns } from '../../src/modules/agent/agent.providers.js';
import type { LlmAdapter } from '../../src/modules/llm/interfaces/llm.interface.js';
import { AgentMemoryTools } from '../../src/modules/http/tools/agent-memory.tools.js';
import { correctMemory } from '../../src/modules/formation/memory-curation.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const boot = async (llm: ScriptedLlm, formation: unknown, recall: unknown = true) => {
  harness = await bootAgent(
    { llm, recall: recall as never, formation: formation as never },
    [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ],
    [AgentMemoryTools],
  );
  return new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
};

/** The entity's active memories once `count` have formed (polled, at most 10 s). */
async function formed(memories: FormedMemories, entityId: string, count: number) {
  let found: FormedMemory[] = [];
  for (let i = 0; i < 200 && found.length < count; i += 1) {
    found = (await memories.list(entityId, { limit: 50 })).memories;
    if (found.length < count) await sleep(50);
  }
  return found;
}

/** The demo model, slowed down or failing its first `failures` extractions. */
class SlowModel implements MemoryFormationModel {
  readonly id = 'slow';
  extractions = 0;
  private readonly inner = new PlainStatementsFormationModel();
  constructor(
    private readonly options: { delayMs?: number; failures?: number; gate?: Promise<void> } = {},
  ) {}
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.extractions += 1;
    if (this.options.delayMs) await sleep(this.options.delayMs);
    await this.options.gate;
    if (this.extractions <= (this.options.failures ?? 0)) throw new Error('model unavailable');
    return this.inner.extract(input);
  }
  choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return this.inner.choose(input);
  }
}

describe('AgentModule formation: memories formed after each committed turn', () => {
  it('forms memories from the turn (sourced to its stored messages) and recalls them in later turns', async () => {
    const llm = new ScriptedLlm([{ content: 'Nice to meet you, Ada.' }, { content: 'Ada.' }]);
    const memories = await boot(llm, { model: 'plain-statements' });
    const first = await harness!.agent.run({
      conversationId: 'f-c1',
      entityId: 'ada',
      message: 'My name is Ada and I live in Berlin.',
    });
    const found = await formed(memories, 'ada', 2);
    expect(found.map((m) => m.text).sort()).toEqual([
      'The user lives in Berlin',
      "The user's name is Ada",
    ]);
    expect(found[0]!.sources).toEqual([
      { conversationId: 'f-c1', messageIds: [first.messages[0]!.id], runId: first.runId },
    ]);
    // (Recall matches words: "my name" finds "The user's name is Ada".)
    await harness!.agent.run({
      conversationId: 'f-c2',
      entityId: 'ada',
      message: 'What is my name again?',
    });
    const block = llm.calls[1]!.messages.map((m) => String(m.content)).find((text) =>
      text.startsWith('<recalled-memory>'),
    )!;
    const name = found.find((m) => m.text.includes('name'))!;
    expect(block).toContain(`- [memory ${name.id}, fact, since `);
    expect(block).toContain('"The user\'s name is Ada"');
    // Formation ran once per turn: the question formed nothing new.
    expect((await memories.list('ada', { state: 'all', limit: 50 })).memories).toHaveLength(2);
  });

  it('never delays the turn: the reply returns while its memories are still forming', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const model = new SlowModel({ gate });
    const memories = await boot(new ScriptedLlm([{ content: 'Hello.' }]), { model });
    // The job cannot end before the gate opens, and the gate opens only once the reply is back.
    await harness!.agent.run({ conversationId: 'f-c3', entityId: 'bo', message: 'I like chess.' });
    expect((await memories.list('bo', { limit: 10 })).memories).toEqual([]);
    open();
    expect((await formed(memories, 'bo', 1)).map((m) => m.text)).toEqual(['The user likes chess']);
  });

  it('retries a failing model with backoff, then records the job as failed', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const flaky = new SlowModel({ failures: 1 });
    let memories = await boot(new ScriptedLlm([{ content: 'Ok.' }]), { model: flaky });
    const tea = await harness!.agent.run({
      conversationId: 'f-c4',
      entityId: 'cy',
      message: 'I like tea.',
    });
    expect((await formed(memories, 'cy', 1)).map((m) => m.text)).toEqual(['The user likes tea']);
    expect(flaky.extractions).toBe(2);
    // The failed attempt is logged with what will happen next.
    expect(warn.mock.calls.map(([message]) => message)).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Memory formation of run ${tea.runId}: attempt 1 of 3 failed \\(Error: model unavailable\\); retrying in \\d+ ms$`,
        ),
      ),
    );
    warn.mockRestore();
    await harness!.close();

    // Fails its first three extractions: both attempts, then the first re-run.
    const broken = new SlowModel({ failures: 3 });
    memories = await boot(new ScriptedLlm([{ content: 'Ok.' }]), { model: broken, attempts: 2 });
    const run = await harness!.agent.run({
      conversationId: 'f-c5',
      entityId: 'di',
      message: 'I like coffee.',
    });
    let failures: Awaited<ReturnType<FormedMemories['failures']>> = [];
    for (let i = 0; i < 100 && failures.length === 0; i += 1) {
      failures = await memories.failures('di', 10);
      if (failures.length === 0) await sleep(50);
    }
    expect(failures).toEqual([
      {
        jobId: `${run.runId}/formation-v1`,
        conversationId: 'f-c5',
        runId: run.runId,
        error: 'model unavailable',
        errorName: 'Error',
        attempts: 2,
        at: expect.any(Number),
        // What the job read, kept so it can run again.
        messages: [
          { id: run.messages[0]!.id, role: 'user', text: 'I like coffee.' },
          { id: run.messages[1]!.id, role: 'assistant', text: 'Ok.' },
        ],
        // Where its context ends (the conversation's start: none), to read it again.
        before: 0,
      },
    ]);
    expect(broken.extractions).toBe(2);
    expect((await memories.list('di', { state: 'all', limit: 10 })).memories).toEqual([]);

    // Run again: it fails once more (the note is kept, one attempt more), then it is written.
    const agent = harness!.agent;
    expect(await agent.rerunFormation('di', run.runId)).toEqual({
      status: 'failed',
      error: 'model unavailable',
      errorName: 'Error',
    });
    expect((await memories.failures('di', 10)).map((failure) => failure.attempts)).toEqual([3]);
    const written = await agent.rerunFormation('di', run.runId);
    expect(written).toEqual({
      status: 'written',
      operations: [expect.objectContaining({ op: 'ADD' })],
    });
    expect((await memories.list('di', { limit: 10 })).memories).toEqual([
      expect.objectContaining({
        text: 'The user likes coffee',
        sources: [expect.objectContaining({ runId: run.runId, messageIds: [run.messages[0]!.id] })],
      }),
    ]);
    expect(await memories.failures('di', 10)).toEqual([]);
    // Nothing left to run: no note, another entity, an unknown run.
    expect(await agent.rerunFormation('di', run.runId)).toBeNull();
    expect(await agent.rerunFormation('other', run.runId)).toBeNull();
    expect(broken.extractions).toBe(4);
  });

  it('shutdown waits for the job in flight; jobs waiting for a slot or a retry start no attempt', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const failing = new SlowModel({ failures: 10, gate });
    await boot(new ScriptedLlm([{ content: 'Ok.' }, { content: 'Ok.' }]), {
      model: failing,
      attempts: 3,
      concurrency: 1,
    });
    // One job runs (held at the gate), the other waits for the slot.
    await harness!.agent.run({ conversationId: 'f-c6', entityId: 'ed', message: 'I like tea.' });
    await harness!.agent.run({ conversationId: 'f-c6b', entityId: 'ef', message: 'I like tea.' });
    let closed = false;
    const closing = harness!.close().then(() => (closed = true));
    harness = undefined;
    await sleep(100);
    expect(closed).toBe(false); // the attempt in flight is awaited
    open();
    await closing;
    // The held attempt failed and was not retried; the waiting job never reached the model.
    await sleep(1_200);
    expect(failing.extractions).toBe(1);
  });

  it('lets the model correct and forget a memory by its id, once per tool call', async () => {
    const llm = new ScriptedLlm([{ content: 'Noted.' }]);
    const memories = await boot(llm, { model: 'plain-statements' });
    await harness!.agent.run({
      conversationId: 'f-c7',
      entityId: 'fe',
      message: 'I live in Rome. I like opera.',
    });
    const [opera, rome] = (await formed(memories, 'fe', 2)).sort((a, b) =>
      a.text.localeCompare(b.text),
    );
    llm.enqueue(
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'memory_correct',
            arguments: JSON.stringify({ id: rome!.id, text: 'The user lives in Milan' }),
          },
          { id: 'c2', name: 'memory_forget', arguments: JSON.stringify({ id: opera!.id }) },
        ],
      },
      { content: 'Updated.' },
    );
    // (The demo model reads no statement in this message: only the tools change the memories.)
    await harness!.agent.run({
      conversationId: 'f-c7',
      entityId: 'fe',
      message: 'That is wrong: Milan, and forget the opera.',
    });
    const active = (await memories.list('fe', { limit: 10 })).memories;
    expect(active.map((m) => [m.text, m.supersedes, m.origin])).toEqual([
      ['The user lives in Milan', rome!.id, 'edit'],
    ]);
    // A retried call (same idempotency key) returns what the first wrote.
    const milan = active[0]!;
    const again = await correctMemory(memories, 'fe', milan.id, 'The user lives in Turin', 'k1');
    const replay = await correctMemory(memories, 'fe', milan.id, 'The user lives in Turin', 'k1');
    expect(replay).toEqual(again);
    expect((await memories.list('fe', { limit: 10 })).memories.map((m) => m.text)).toEqual([
      'The user lives in Turin',
    ]);
  });

  it('runs at most `concurrency` jobs at once, and notes a job as failed past `maxPending`', async () => {
    let running = 0;
    let most = 0;
    // Jobs hold their slot until every turn has committed: the fourth finds three waiting.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const inner = new PlainStatementsFormationModel();
    const model: MemoryFormationModel = {
      id: 'counted',
      async extract(input) {
        running += 1;
        most = Math.max(most, running);
        await gate;
        running -= 1;
        return inner.extract(input);
      },
      choose: (input) => inner.choose(input),
    };
    const people = ['p1', 'p2', 'p3', 'p4'];
    const replies = people.map(() => ({ content: 'Ok.' }));
    // One tenant (ids without a `/`) may take all the room here: the process's bound is tested.
    const memories = await boot(new ScriptedLlm(replies), {
      model,
      concurrency: 2,
      maxPending: 3,
      tenants: { maxPending: 3 },
    });
    const say = (person: string) =>
      harness!.agent.run({
        conversationId: `f-${person}`,
        entityId: person,
        message: 'I like tea.',
      });
    // Three turns at once (two jobs run, one waits), then a fourth: its job finds three pending.
    await Promise.all(people.slice(0, 3).map(say));
    await say('p4');
    open();
    // Three waited at most: the fourth turn's job was noted as failed instead.
    for (const person of people.slice(0, 3))
      expect((await formed(memories, person, 1)).map((m) => m.text)).toEqual([
        'The user likes tea',
      ]);
    expect(most).toBe(2);
    expect((await memories.list('p4', { limit: 10 })).memories).toEqual([]);
    expect(await memories.failures('p4', 10)).toMatchObject([
      { error: '3 formation jobs were pending in this process', attempts: 0 },
    ]);
  });

  it('erasure wins over a turn in flight, and erasing the entity erases what formation recorded', async () => {
    // A model held at the gate: the run has begun (its formation seq is taken) when it is called.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let called!: () => void;
    const reached = new Promise<void>((resolve) => (called = resolve));
    const scripted = new ScriptedLlm([{ content: 'Ok.' }, { content: 'Ok.' }]);
    const held: LlmAdapter = {
      chat: async (request) => {
        called();
        await gate;
        return scripted.chat(request);
      },
      stream: (request, onToken) => scripted.stream(request, onToken),
    };
    let chooses = 0;
    const inner = new PlainStatementsFormationModel();
    const model: MemoryFormationModel = {
      id: 'plain',
      extract: (input) => inner.extract(input),
      choose: async (input) => ((chooses += 1), inner.choose(input)),
    };
    harness = await bootAgent({ llm: held, formation: { model } }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ]);
    const memories = new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
    const turn = harness.agent.run({
      conversationId: 'f-c9',
      entityId: 'gw',
      message: 'I live in Oslo.',
    });
    await reached;
    await harness.agent.eraseEntity('gw');
    open();
    await turn;
    for (let i = 0; i < 200 && chooses === 0; i += 1) await sleep(25);
    await sleep(300); // the job's write (refused) follows its choice within milliseconds
    expect((await memories.list('gw', { state: 'all', limit: 10 })).memories).toEqual([]);
    expect(await memories.failures('gw', 10)).toEqual([]);

    // A turn formed, then its entity erased: its memories and the run's recorded steps go.
    const done = await harness.agent.run({
      conversationId: 'f-c10',
      entityId: 'gx',
      message: 'I live in Bergen.',
    });
    expect((await formed(memories, 'gx', 1)).map((m) => m.text)).toEqual([
      'The user lives in Bergen',
    ]);
    const runs = harness.moduleRef.get<{ value: AgentRuns }>(AGENT_RUNS).value;
    expect((await runs.store.entries(done.runId)).map(([key]) => key)).toContain(
      'formation-v1:extract',
    );
    await harness.agent.eraseEntity('gx');
    expect(await runs.store.entries(done.runId)).toEqual([]);
    expect((await memories.list('gx', { state: 'all', limit: 10 })).memories).toEqual([]);
  });

  it('keeps an entity within `maxActive`: a job past it adds nothing and its record says why', async () => {
    const memories = await boot(new ScriptedLlm([{ content: 'Noted.' }]), {
      model: 'plain-statements',
      maxActive: { count: 1 },
    });
    const { runId } = await harness!.agent.run({
      conversationId: 'f-cap',
      entityId: 'fcap',
      message: 'I live in Rome. I like opera.',
    });
    let record = null;
    for (let i = 0; i < 200 && !record; i += 1) {
      record = await memories.job('fcap', `${runId}/formation-v1`);
      if (!record) await sleep(50);
    }
    expect(record!.operations).toEqual([
      expect.objectContaining({ op: 'ADD' }),
      expect.objectContaining({ op: 'NONE', overruled: expect.stringContaining('maximum of 1') }),
    ]);
    expect((await memories.list('fcap', { limit: 10 })).memories.map((m) => m.text)).toEqual([
      'The user lives in Rome',
    ]);
  });

  it('refuses a formation option it cannot use, naming it', async () => {
    const problems = [
      [{ kinds: [] }, 'formation.kinds'],
      [{ model: 42 }, 'formation.model'],
      [{ attempts: 0 }, 'formation.attempts'],
      [{ every: 2 }, 'formation.every'],
      [{ maxActive: 5 }, 'formation.maxActive'],
      [{ maxActive: { count: 0 } }, 'formation.maxActive.count'],
      [{ maxActive: { bytes: 10 } }, 'formation.maxActive.bytes'],
      [{ maxActive: { count: 5, size: 1 } }, 'formation.maxActive.size'],
      [{ maxJobTokens: 999 }, 'formation.maxJobTokens'],
      [{ maxInputTokens: 10_000, maxJobTokens: 5_000 }, 'formation.maxJobTokens'],
      [{ tenants: { concurrency: 0 } }, 'formation.tenants.concurrency'],
      [{ tenants: { maxPending: 1.5 } }, 'formation.tenants.maxPending'],
      [{ tenants: { ownerOf: 'tenant' } }, 'formation.tenants.ownerOf'],
      [{ tenants: { quota: 1 } }, 'formation.tenants.quota'],
    ] as const;
    for (const [formation, option] of problems) {
      const error = await rejectionOf(boot(new ScriptedLlm(), formation));
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as Error).message).toContain(option);
    }
    const withoutTier = await rejectionOf(
      bootAgent({ llm: new ScriptedLlm(), formation: true }, [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
      ]),
    );
    expect((withoutTier as Error).message).toMatch(/formation.*long-term tier/);
  });
});
