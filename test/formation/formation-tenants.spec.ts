import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * The demo model, whose extractions wait at a gate and are noted in the order they begin: the
 * order jobs got their slot.
 */
function gatedModel() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const started: string[] = [];
  const inner = new PlainStatementsFormationModel();
  const model: MemoryFormationModel = {
    id: 'gated',
    async extract(input) {
      started.push(input.entityId);
      await gate;
      return inner.extract(input);
    },
    choose: (input) => inner.choose(input),
  };
  return { model, open, started };
}

async function boot(formation: Record<string, unknown>, turns: number) {
  harness = await bootAgent(
    {
      llm: new ScriptedLlm(Array.from({ length: turns }, () => ({ content: 'Ok.' }))),
      recall: true,
      formation: formation as never,
    },
    [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ],
  );
  return new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
}

const say = (entityId: string) =>
  harness!.agent.run({ conversationId: `c-${entityId}`, entityId, message: 'I like tea.' });

/** Polls until `done` holds (at most 10 s). */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 200 && !(await done()); i += 1) await sleep(50);
}

describe('formation bounds per tenant (the text before an entity id’s first /)', () => {
  it("gives a freed slot to the tenants waiting in turn: one tenant's backlog does not hold back another's job", async () => {
    const { model, open, started } = gatedModel();
    const memories = await boot({ model, concurrency: 1 }, 6);
    // Tenant a's five turns first (one runs, four wait), then tenant b's one.
    for (const person of ['p1', 'p2', 'p3', 'p4', 'p5']) await say(`a/${person}`);
    await say('b/p1');
    open();
    await until(async () => (await memories.list('a/p5', { limit: 5 })).memories.length > 0);
    // In arrival order b's job would start sixth; tenants in turn, it starts third (a's running
    // job, then a's next, then b's).
    expect(started).toEqual(['a/p1', 'a/p2', 'b/p1', 'a/p3', 'a/p4', 'a/p5']);
    expect((await memories.list('b/p1', { limit: 5 })).memories.map((m) => m.text)).toEqual([
      'The user likes tea',
    ]);
  });

  it('caps the jobs of one tenant that run at once (`tenants.concurrency`)', async () => {
    const { model, open, started } = gatedModel();
    const memories = await boot({ model, concurrency: 3, tenants: { concurrency: 1 } }, 4);
    for (const person of ['p1', 'p2', 'p3']) await say(`a/${person}`);
    await say('b/p1');
    await until(() => started.length >= 2);
    await sleep(100); // time for a third start, which must not come while a's first job runs
    expect(started).toEqual(['a/p1', 'b/p1']);
    open();
    await until(async () => (await memories.list('a/p3', { limit: 5 })).memories.length > 0);
    expect(started).toEqual(['a/p1', 'b/p1', 'a/p2', 'a/p3']);
  });

  it("notes a tenant's job as failed past `tenants.maxPending`, while other tenants' jobs still wait and form", async () => {
    const { model, open } = gatedModel();
    const memories = await boot({ model, concurrency: 1, tenants: { maxPending: 2 } }, 5);
    for (const person of ['p1', 'p2', 'p3', 'p4']) await say(`a/${person}`);
    await say('b/p1');
    open();
    for (const entity of ['a/p1', 'a/p2', 'b/p1'])
      await until(async () => (await memories.list(entity, { limit: 5 })).memories.length > 0);
    for (const entity of ['a/p1', 'a/p2', 'b/p1'])
      expect((await memories.list(entity, { limit: 5 })).memories.map((m) => m.text)).toEqual([
        'The user likes tea',
      ]);
    for (const entity of ['a/p3', 'a/p4']) {
      expect((await memories.list(entity, { limit: 5 })).memories).toEqual([]);
      expect(await memories.failures(entity, 5)).toMatchObject([
        {
          error: "2 formation jobs of the entity's tenant were pending here",
          errorName: 'FormationQueueFullError',
          attempts: 0,
        },
      ]);
      // Noted, not lost: the job can run again.
      const runId = (await memories.failures(entity, 5))[0]!.runId;
      expect(await harness!.agent.rerunFormation(entity, runId)).toMatchObject({
        status: 'written',
      });
    }
  });

  it('counts tenants by `tenants.ownerOf` when the app gives one', async () => {
    const { model, open, started } = gatedModel();
    const memories = await boot(
      { model, concurrency: 1, tenants: { ownerOf: (id: string) => id.split(':')[0] } },
      4,
    );
    for (const entity of ['x:1', 'x:2', 'x:3', 'y:1']) await say(entity);
    open();
    await until(async () => (await memories.list('x:3', { limit: 5 })).memories.length > 0);
    expect(started).toEqual(['x:1', 'x:2', 'y:1', 'x:3']);
  });
});
