import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import type { FormedMemory } from '../../src/modules/formation/formed-memory.interface.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
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
  constructor(private readonly options: { delayMs?: number; failures?: number } = {}) {}
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.extractions += 1;
    if (this.options.delayMs) await sleep(this.options.delayMs);
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
    const model = new SlowModel({ delayMs: 1_500 });
    const memories = await boot(new ScriptedLlm([{ content: 'Hello.' }]), { model });
    const started = performance.now();
    await harness!.agent.run({ conversationId: 'f-c3', entityId: 'bo', message: 'I like chess.' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await memories.list('bo', { limit: 10 })).memories).toEqual([]);
    expect((await formed(memories, 'bo', 1)).map((m) => m.text)).toEqual(['The user likes chess']);
  });

  it('retries a failing model with backoff, then records the job as failed', async () => {
    const flaky = new SlowModel({ failures: 1 });
    let memories = await boot(new ScriptedLlm([{ content: 'Ok.' }]), { model: flaky });
    await harness!.agent.run({ conversationId: 'f-c4', entityId: 'cy', message: 'I like tea.' });
    expect((await formed(memories, 'cy', 1)).map((m) => m.text)).toEqual(['The user likes tea']);
    expect(flaky.extractions).toBe(2);
    await harness!.close();

    const broken = new SlowModel({ failures: 10 });
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
        attempts: 2,
        at: expect.any(Number),
      },
    ]);
    expect(broken.extractions).toBe(2);
    expect((await memories.list('di', { state: 'all', limit: 10 })).memories).toEqual([]);
  });

  it('shutdown waits for the job in flight and starts no further attempt', async () => {
    const failing = new SlowModel({ delayMs: 400, failures: 10 });
    await boot(new ScriptedLlm([{ content: 'Ok.' }]), { model: failing, attempts: 3 });
    await harness!.agent.run({ conversationId: 'f-c6', entityId: 'ed', message: 'I like tea.' });
    const closing = performance.now();
    await harness!.close();
    harness = undefined;
    // The attempt in flight ended before the stores closed; no retry began.
    expect(performance.now() - closing).toBeGreaterThanOrEqual(300);
    await sleep(1_500);
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
    const memories = await boot(new ScriptedLlm(replies), { model, concurrency: 2, maxPending: 3 });
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
      { error: '3 formation jobs were waiting in this process', attempts: 0 },
    ]);
  });

  it('refuses a formation option it cannot use, naming it', async () => {
    const problems = [
      [{ kinds: [] }, 'formation.kinds'],
      [{ model: 42 }, 'formation.model'],
      [{ attempts: 0 }, 'formation.attempts'],
      [{ every: 2 }, 'formation.every'],
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
