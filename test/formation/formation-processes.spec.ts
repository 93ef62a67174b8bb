import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

const harnesses: AgentHarness[] = [];
/** Opens the models' gate: at teardown too, so a failed test's jobs end and the apps close. */
let open: () => void = () => undefined;
afterEach(async () => {
  open();
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

/** The demo model, whose extractions wait at `gate` and are counted as they begin. */
class GatedModel implements MemoryFormationModel {
  readonly id = 'gated';
  extractions = 0;
  private readonly inner = new PlainStatementsFormationModel();
  constructor(private readonly gate: Promise<void>) {}
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.extractions += 1;
    await this.gate;
    return this.inner.extract(input);
  }
  choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return this.inner.choose(input);
  }
}

/** An app process: the agent on PostgreSQL (conversations, runs, memories) shared with the others. */
async function process(model: MemoryFormationModel, formation: object = {}) {
  const harness = await bootAgent(
    {
      llm: new ScriptedLlm([{ content: 'Ok.' }, { content: 'Ok.' }]),
      recall: true,
      formation: { model, ...formation },
    },
    [
      ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL }),
      LongtermMemoryModule.forRoot({ uri: TEST_POSTGRES_URL, sweep: false }),
    ],
  );
  harnesses.push(harness);
  return harness;
}

/**
 * Two processes of an app forming one entity's memories at once (each turn in its own process):
 * an entity's jobs hold its lease in the shared run store, so the second consolidates against what
 * the first wrote — the same fact said in two conversations is one memory, not two.
 */
describe("two processes forming one entity's memories at once (PostgreSQL)", () => {
  it('forms a fact told to both once: the second job finds the first one’s memory', async () => {
    const gate = new Promise<void>((resolve) => (open = resolve));
    const [first, second] = [new GatedModel(gate), new GatedModel(gate)];
    const [a, b] = [await process(first), await process(second)];
    const entity = `twice-${randomUUID().slice(0, 8)}`;
    await a.agent.run({ conversationId: `${entity}-1`, entityId: entity, message: 'I like tea.' });
    await b.agent.run({ conversationId: `${entity}-2`, entityId: entity, message: 'I like tea.' });
    // One job is at its model, holding the entity's lease; the other waits for the lease.
    for (let i = 0; i < 100 && first.extractions + second.extractions < 1; i += 1) await sleep(20);
    await sleep(300);
    expect(first.extractions + second.extractions).toBe(1);
    open();
    const memories = new FormedMemories(a.moduleRef.get(LongtermMemoryService));
    for (let i = 0; i < 200 && (await memories.jobs(entity, 10)).length < 2; i += 1)
      await sleep(50);
    const jobs = await memories.jobs(entity, 10);
    expect(jobs.map((job) => job.operations.map((operation) => operation.op)).sort()).toEqual([
      ['ADD'],
      ['NONE'],
    ]);
    expect(
      (await memories.list(entity, { state: 'all', limit: 10 })).memories.map((m) => m.text),
    ).toEqual(['The user likes tea']);
  });

  it("waits for another process's job of the entity holding no slot: its other jobs go on", async () => {
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = new GatedModel(gate);
    const free = new GatedModel(Promise.resolve());
    // One slot in the second process: a job waiting for the entity's lease must not hold it.
    const [a, b] = [await process(held), await process(free, { concurrency: 1 })];
    const entity = `held-${randomUUID().slice(0, 8)}`;
    const other = `other-${randomUUID().slice(0, 8)}`;
    await a.agent.run({ conversationId: `${entity}-a`, entityId: entity, message: 'I like tea.' });
    for (let i = 0; i < 100 && held.extractions < 1; i += 1) await sleep(20);
    await b.agent.run({ conversationId: `${entity}-b`, entityId: entity, message: 'I like jazz.' });
    await b.agent.run({ conversationId: other, entityId: other, message: 'I like chess.' });
    const memories = new FormedMemories(b.moduleRef.get(LongtermMemoryService));
    for (let i = 0; i < 200 && (await memories.jobs(other, 10)).length < 1; i += 1) await sleep(25);
    // The other entity's memory formed while the held entity's jobs still wait.
    expect((await memories.list(other, { limit: 10 })).memories.map((m) => m.text)).toEqual([
      'The user likes chess',
    ]);
    expect(await memories.jobs(entity, 10)).toEqual([]);
    open();
    for (let i = 0; i < 200 && (await memories.jobs(entity, 10)).length < 2; i += 1)
      await sleep(25);
    expect((await memories.list(entity, { limit: 10 })).memories.map((m) => m.text).sort()).toEqual(
      ['The user likes jazz', 'The user likes tea'],
    );
  });
});
