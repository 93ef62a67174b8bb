import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import type { EntityProfile } from '../../src/modules/formation/profile/entity-profiles.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { name: { type: 'string' }, city: { type: 'string' } },
};

const boot = async (llm: ScriptedLlm, profile: unknown = { schema: SCHEMA }) => {
  harness = await bootAgent(
    { llm, recall: true, formation: { model: 'plain-statements', profile: profile as never } },
    [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ],
  );
  return new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
};

/** The entity's profile once it reached `version` (polled, at most 10 s). */
async function profileAt(entityId: string, version: number): Promise<EntityProfile | undefined> {
  let profile: EntityProfile | undefined;
  for (let i = 0; i < 200 && (profile?.version ?? 0) < version; i += 1) {
    profile = await harness!.agent.profiles!.get(entityId);
    if ((profile?.version ?? 0) < version) await sleep(50);
  }
  return profile;
}

/** The recalled-memory block the model was sent on call `index`. */
const blockOf = (llm: ScriptedLlm, index: number) =>
  llm.calls[index]!.messages.find(
    (m) => m.role === 'user' && String(m.content).startsWith('<recalled-memory>'),
  )?.content as string | undefined;

/** The profile line of a block: its version, its document, and whether it is the first line. */
function profileIn(block: string | undefined) {
  const lines = (block ?? '').split('\n').filter((line) => line.startsWith('- ['));
  const at = lines.findIndex((line) => line.startsWith('- [profile, '));
  const found = /^- \[profile, version (\d+), \d{4}-\d\d-\d\d\] (.*)$/.exec(lines[at] ?? '');
  return found
    ? { version: found[1], document: JSON.parse(found[2]!) as unknown, first: at === 0 }
    : undefined;
}

describe('AgentModule formation with a profile', () => {
  it('fills the profile from what the user says, keeps what a turn does not name, and gives it to the model', async () => {
    const llm = new ScriptedLlm([
      { content: 'Nice to meet you.' },
      { content: 'Milan it is.' },
      { content: 'Hello!' },
    ]);
    const memories = await boot(llm);
    const first = await harness!.agent.run({
      conversationId: 'p-1',
      entityId: 'ada',
      message: 'My name is Ada. I live in Rome.',
    });
    expect(await profileAt('ada', 1)).toEqual({
      document: { name: 'Ada', city: 'Rome' },
      version: 1,
      updatedAt: expect.any(Number),
      origin: 'formation',
      runId: first.runId,
    });
    // The job's record says what its patch did.
    expect((await memories.job('ada', `${first.runId}/formation-v1`))?.profile).toEqual({
      status: 'applied',
      members: ['name', 'city'],
      version: 1,
    });

    await harness!.agent.run({
      conversationId: 'p-2',
      entityId: 'ada',
      message: 'I moved to Milan.',
    });
    // The second turn's block held the profile as it was (version 1), first, as quoted data.
    expect(profileIn(blockOf(llm, 1))).toEqual({
      version: '1',
      document: { name: 'Ada', city: 'Rome' },
      first: true,
    });
    expect((await profileAt('ada', 2))?.document).toEqual({ name: 'Ada', city: 'Milan' });
    // A message without a word still gets the profile.
    await harness!.agent.run({ conversationId: 'p-3', entityId: 'ada', message: '👋' });
    expect(profileIn(blockOf(llm, 2))).toEqual({
      version: '2',
      document: { name: 'Ada', city: 'Milan' },
      first: true,
    });
    expect((await harness!.agent.profiles!.history('ada', 10)).map((v) => v.patch)).toEqual([
      { name: 'Ada', city: 'Rome' },
      { city: 'Milan' },
    ]);

    // Erasing the entity erases its profile.
    await harness!.agent.eraseEntity('ada');
    expect(await harness!.agent.profiles!.get('ada')).toBeUndefined();
  });

  it('leaves the profile out of the prompt past its token budget, and a patch the schema refuses out of the profile', async () => {
    const llm = new ScriptedLlm([{ content: 'Hi.' }, { content: 'Hi again.' }]);
    const memories = await boot(llm, {
      schema: {
        ...SCHEMA,
        properties: { ...SCHEMA.properties, city: { type: 'string', maxLength: 3 } },
      },
      maxPromptTokens: 5,
    });
    const run = await harness!.agent.run({
      conversationId: 'p-4',
      entityId: 'bo',
      message: 'My name is Bo. I live in Copenhagen.',
    });
    let record = await memories.job('bo', `${run.runId}/formation-v1`);
    for (let i = 0; i < 200 && !record; i += 1) {
      await sleep(50);
      record = await memories.job('bo', `${run.runId}/formation-v1`);
    }
    // The city breaks the schema: the patch is refused whole, the memories are written.
    expect(record?.profile).toEqual({
      status: 'refused',
      members: ['name', 'city'],
      reason: expect.stringMatching(
        /^the profile would not fit its schema: \/city must NOT have more than 3 characters/,
      ),
    });
    expect(record?.operations.map((op) => op.op)).toEqual(['ADD', 'ADD']);
    expect(await harness!.agent.profiles!.get('bo')).toBeUndefined();
    const edited = await harness!.agent.profiles!.apply(
      'bo',
      { name: 'Bo' },
      { seq: await memories.nextSeq('bo'), at: Date.now() },
      { origin: 'edit' },
    );
    expect(edited.status).toBe('applied');
    await harness!.agent.run({
      conversationId: 'p-5',
      entityId: 'bo',
      message: 'What is my name?',
    });
    // The block is there (the name's memory), without the profile: over its 5 tokens.
    const block = blockOf(llm, 1)!;
    expect(block).toContain("The user's name is Bo");
    expect(block).not.toContain('[profile');
  });

  it('refuses a profile option it cannot use, naming it', async () => {
    for (const [profile, named] of [
      [{ schema: { type: 'array' } }, 'formation.profile.schema'],
      [{ schema: SCHEMA, maxBytes: 10 }, 'formation.profile.maxBytes'],
      [{ schema: SCHEMA, color: 'red' }, 'formation.profile.color'],
    ] as const) {
      const error = await boot(new ScriptedLlm(), profile).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(named);
      harness = undefined;
    }
  });
});
