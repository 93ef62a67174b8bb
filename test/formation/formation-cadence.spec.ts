import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
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

/** The demo model, recording what each extraction read. */
class RecordingModel implements MemoryFormationModel {
  readonly id = 'recording';
  readonly reads: string[][] = [];
  private readonly inner = new PlainStatementsFormationModel();
  extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.reads.push(input.messages.filter((m) => m.role === 'user').map((m) => m.text));
    return this.inner.extract(input);
  }
  choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return this.inner.choose(input);
  }
}

const QUIET_MS = 400;

const boot = async (every: unknown, model = new RecordingModel()) => {
  harness = await bootAgent(
    {
      llm: new ScriptedLlm(Array.from({ length: 5 }, () => ({ content: 'Ok.' }))),
      formation: { model, every: every as never },
    },
    [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ],
  );
  return { model, memories: new FormedMemories(harness.moduleRef.get(LongtermMemoryService)) };
};

describe('formation every N turns or after a quiet period (formation.every)', () => {
  it('forms a conversation’s turns two at a time, and a lone turn once its conversation is quiet', async () => {
    const { model, memories } = await boot({ turns: 2, quietMs: QUIET_MS });
    const run = (message: string) =>
      harness!.agent.run({ conversationId: 'cad-1', entityId: 'cy', message });
    const first = await run('I like tea.');
    const second = await run('I like jazz.');
    // One job for both turns, named by the second: one extraction read both.
    let texts: string[] = [];
    for (let i = 0; i < 100 && texts.length < 2; i += 1) {
      await sleep(25);
      texts = (await memories.list('cy', { limit: 10 })).memories.map((m) => m.text).sort();
    }
    expect(texts).toEqual(['The user likes jazz', 'The user likes tea']);
    expect(model.reads).toEqual([['I like tea.', 'I like jazz.']]);
    expect(await memories.job('cy', `${first.runId}/formation-v1`)).toBeNull();
    const job = await memories.job('cy', `${second.runId}/formation-v1`);
    expect(job?.operations.filter((op) => op.op === 'ADD')).toHaveLength(2);

    // A third turn alone: nothing until the conversation has been quiet, then its own job.
    const started = performance.now();
    await run('I like chess.');
    await sleep(QUIET_MS / 2);
    expect(model.reads).toHaveLength(1);
    for (let i = 0; i < 200 && model.reads.length < 2; i += 1) await sleep(25);
    expect(performance.now() - started).toBeGreaterThanOrEqual(QUIET_MS);
    expect(model.reads[1]).toEqual(['I like chess.']);
  });

  it('keeps conversations apart, and forms what waits when the app shuts down (noted as failed here: no shared run store)', async () => {
    const { model, memories } = await boot({ turns: 3 });
    await harness!.agent.run({ conversationId: 'cad-2', entityId: 'di', message: 'I like tea.' });
    await harness!.agent.run({ conversationId: 'cad-3', entityId: 'di', message: 'I like jazz.' });
    await sleep(100);
    expect(model.reads).toEqual([]); // each conversation holds one turn of three, 60 s quiet
    await harness!.close();
    const failures = await memories.failures('di', 10);
    harness = undefined;
    expect(failures.map((f) => [f.conversationId, f.error])).toEqual(
      expect.arrayContaining([
        ['cad-2', 'the app shut down before the job ran'],
        ['cad-3', 'the app shut down before the job ran'],
      ]),
    );
  });

  it('refuses a cadence it cannot use, naming it', async () => {
    for (const [every, named] of [
      [{ turns: 0 }, 'formation.every.turns'],
      [{ quietMs: -1 }, 'formation.every.quietMs'],
      [{ turn: 2 }, 'formation.every.turn'],
    ] as const) {
      const error = await boot(every).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(named);
      harness = undefined;
    }
  });
});
