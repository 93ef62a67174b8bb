import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TurnFormation } from '../../src/modules/agent/turn-formation.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { tempDir } from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** How soon a silent process's jobs are taken over. */
const LEASE_MS = 1_000;

/** The demo model, counting its extractions; each waits for `gate` when one is given. */
class CountingModel implements MemoryFormationModel {
  readonly id = 'counting';
  extractions = 0;
  private readonly inner = new PlainStatementsFormationModel();
  constructor(private readonly gate?: Promise<void>) {}
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.extractions += 1;
    await this.gate;
    return this.inner.extract(input);
  }
  choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return this.inner.choose(input);
  }
}

/**
 * With a run store that outlives the process (SQLite files here), an app shut down while a turn's
 * formation job waits for a slot leaves the job noted rather than failed, and the app started
 * again forms it — once, at the turn's seq.
 */
describe('formation jobs left at shutdown, on SQLite', () => {
  const dir = tempDir();
  const boot = async (model: MemoryFormationModel, llm = new ScriptedLlm()) => {
    harness = await bootAgent(
      {
        llm,
        recall: true,
        runLeaseMs: LEASE_MS,
        runs: { backend: 'sqlite', path: join(dir, 'runs.sqlite') },
        formation: { model, concurrency: 1 },
      },
      [
        ChatMemoryModule.forRoot({ backend: 'sqlite', path: join(dir, 'chat.sqlite') }),
        LongtermMemoryModule.forRoot({
          uri: `sqlite:${join(dir, 'longterm.sqlite')}`,
          sweep: false,
        }),
      ],
    );
    return new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
  };

  it('forms a job that waited for a slot when the app stopped, after the next start', async () => {
    let open!: () => void;
    const held = new CountingModel(new Promise<void>((resolve) => (open = resolve)));
    await boot(held, new ScriptedLlm([{ content: 'Ok.' }, { content: 'Ok.' }]));
    // The first job holds the only slot at the model; the second waits for it.
    await harness!.agent.run({ conversationId: 'j-1', entityId: 'ann', message: 'I like tea.' });
    await harness!.agent.run({ conversationId: 'j-2', entityId: 'bo', message: 'I like jazz.' });
    // The held job ends once the shutdown has begun: the waiting one then starts no attempt.
    const settle = TurnFormation.prototype.settle;
    const spy = jest.spyOn(TurnFormation.prototype, 'settle').mockImplementation(function (
      this: TurnFormation,
    ) {
      const settled = settle.call(this);
      open();
      return settled;
    });
    await harness!.close();
    harness = undefined;
    spy.mockRestore();
    expect(held.extractions).toBe(1);

    const again = new CountingModel();
    const memories = await boot(again);
    let found: string[] = [];
    for (let i = 0; i < 100 && found.length === 0; i += 1) {
      await sleep(100);
      found = (await memories.list('bo', { limit: 10 })).memories.map((memory) => memory.text);
    }
    expect(found).toEqual(['The user likes jazz']);
    expect(await memories.failures('bo', 10)).toEqual([]);
    // Formed once: nothing runs it again a lease later.
    await sleep(2 * LEASE_MS);
    expect(again.extractions).toBe(1);
    expect((await memories.list('bo', { limit: 10 })).memories).toHaveLength(1);
  });
});
