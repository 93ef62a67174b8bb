import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type {
  ExtractionInput,
  MemoryFormationModel,
} from '../../src/modules/formation/formation-model.interface.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The demo model, keeping what each extraction was given. */
function recordingModel() {
  const inputs: ExtractionInput[] = [];
  const inner = new PlainStatementsFormationModel();
  const model: MemoryFormationModel = {
    id: 'recording',
    async extract(input) {
      inputs.push(input);
      return inner.extract(input);
    },
    choose: (input) => inner.choose(input),
  };
  return { model, inputs };
}

const replies = (n: number) =>
  new ScriptedLlm(Array.from({ length: n }, (_, i) => ({ content: `Reply ${i + 1}.` })));

async function boot(model: MemoryFormationModel, turns: number, formation: object = {}) {
  harness = await bootAgent({ llm: replies(turns), formation: { model, ...formation } }, [
    ChatMemoryModule.forRoot({ backend: 'memory' }),
    LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
  ]);
}

const say = (message: string) =>
  harness!.agent.run({ conversationId: 'ctx-1', entityId: 'ada', message });

async function until(done: () => boolean) {
  for (let i = 0; i < 200 && !done(); i += 1) await sleep(25);
}

describe("a formation job reads the conversation's messages before its turns, for context", () => {
  it('gives the extraction the last messages before the turn (at most six), apart from the turn', async () => {
    const { model, inputs } = recordingModel();
    await boot(model, 5);
    for (const message of [
      'Hi.',
      'My sister is Eve.',
      'She is a nurse.',
      'I like tea.',
      'So does she.',
    ])
      await say(message);
    await until(() => inputs.length === 5);
    const texts = (input: ExtractionInput) => input.context.map((m) => `${m.role}: ${m.text}`);
    expect(texts(inputs[0]!)).toEqual([]);
    expect(texts(inputs[1]!)).toEqual(['user: Hi.', 'assistant: Reply 1.']);
    // The fifth turn: the six messages before it, the turn itself not among them.
    expect(texts(inputs[4]!)).toEqual([
      'user: My sister is Eve.',
      'assistant: Reply 2.',
      'user: She is a nurse.',
      'assistant: Reply 3.',
      'user: I like tea.',
      'assistant: Reply 4.',
    ]);
    expect(inputs[4]!.messages.map((m) => m.text)).toEqual(['So does she.', 'Reply 5.']);
  });

  it('with `every.turns`, the context of a batch is what came before its first turn', async () => {
    const { model, inputs } = recordingModel();
    await boot(model, 4, { every: { turns: 2, quietMs: 60_000 } });
    for (const message of ['Hi.', 'My sister is Eve.', 'She is a nurse.', 'I like tea.'])
      await say(message);
    await until(() => inputs.length === 2);
    expect(inputs[0]!.context).toEqual([]);
    expect(inputs[1]!.context.map((m) => m.text)).toEqual([
      'Hi.',
      'Reply 1.',
      'My sister is Eve.',
      'Reply 2.',
    ]);
    expect(inputs[1]!.messages.map((m) => m.text)).toEqual([
      'She is a nurse.',
      'Reply 3.',
      'I like tea.',
      'Reply 4.',
    ]);
  });

  it('a job noted as failed before it read its context reads it when it runs again', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { model: recording, inputs } = recordingModel();
    const model: MemoryFormationModel = {
      ...recording,
      async extract(input) {
        await gate;
        return recording.extract(input);
      },
    };
    await boot(model, 2, { concurrency: 1, maxPending: 1, tenants: { maxPending: 1 } });
    await say('My sister is Eve.'); // its job waits at the gate: the queue is full
    const second = await say('She is a nurse.');
    open();
    const memories = harness!.agent;
    let rerun: Awaited<ReturnType<typeof memories.rerunFormation>> = null;
    for (let i = 0; i < 100 && !rerun; i += 1) {
      rerun = await memories.rerunFormation('ada', second.runId);
      if (!rerun) await sleep(25);
    }
    expect(rerun).toMatchObject({ status: 'written' });
    // Two extractions: the first turn's, and the second's when run again, with its context.
    expect(inputs.map((input) => input.context.map((m) => m.text))).toEqual([
      [],
      ['My sister is Eve.', 'Reply 1.'],
    ]);
  });
});
