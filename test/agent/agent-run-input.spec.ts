import { afterEach, describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { AGENT_QUEUE } from '../../src/modules/agent/agent.constants.js';
import type { AgentQueue } from '../../src/modules/agent/queue/agent-queue.interface.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** An agent on process memory whose model answers `ok` to every call. */
async function agentAnsweringOk(): Promise<{ llm: ScriptedLlm; store: ChatMemoryStore }> {
  const llm = new ScriptedLlm(Array.from({ length: 4 }, () => ({ content: 'ok' })));
  harness = await bootAgent({ llm }, [ChatMemoryModule.forRoot({ backend: 'memory' })]);
  return { llm, store: harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE) };
}

describe('what a run takes as its message and entity', () => {
  it('takes an array of parts as the user message, as the HTTP route does', async () => {
    const { llm, store } = await agentAnsweringOk();
    const parts = [{ type: 'text' as const, text: 'Look at this' }];
    const result = await harness!.agent.run({ conversationId: 'parts', message: parts });
    expect(result.reply.content).toBe('ok');
    expect(llm.calls[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: parts });
    const stored = await store.range('parts', 0, 10);
    expect(stored.map(({ role, content }) => [role, content])).toEqual([
      ['user', parts],
      ['assistant', 'ok'],
    ]);
    const [listed] = (await harness!.agent.conversations('', { limit: 5 })).conversations;
    expect(listed).toMatchObject({ conversationId: 'parts', title: 'Look at this' });
  });

  it('refuses an array of parts that is empty or holds a bad part, naming it, storing nothing', async () => {
    const { store } = await agentAnsweringOk();
    await expect(harness!.agent.run({ conversationId: 'bad', message: [] })).rejects.toThrow(
      'Invalid message.content: must hold at least one part',
    );
    const bad = [{ type: 'text', text: 42 }] as never;
    await expect(harness!.agent.run({ conversationId: 'bad', message: bad })).rejects.toThrow(
      /message\.content\[0\]/,
    );
    expect(await store.version('bad')).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['null', null],
    ['not a string', 42],
    ['over 255 bytes', 'é'.repeat(128)],
    ['holding U+0000', 'a\u0000b'],
  ])(
    'refuses an entityId %s, in a run, a queued run and a reservation',
    async (_label, entityId) => {
      const { llm, store } = await agentAnsweringOk();
      const input = { conversationId: 'who', message: 'hi', entityId: entityId as string };
      for (const attempt of [
        () => harness!.agent.run(input),
        () => harness!.agent.submit(input),
        () => harness!.agent.reserveRun({ ...input, runId: 'r1' }),
      ]) {
        const error = await attempt().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).argument).toBe('entityId');
      }
      expect(llm.calls).toHaveLength(0);
      expect(await store.version('who')).toBe(0);
    },
  );

  it('runs a job an earlier version queued with an empty entityId, as it ran then', async () => {
    const { store } = await agentAnsweringOk();
    const queue = harness!.moduleRef.get<{ value: AgentQueue }>(AGENT_QUEUE).value;
    const runId = 'queued-before-the-check';
    const message = { role: 'user' as const, content: 'hi', id: `${runId}:0` };
    await queue.submit({ runId, conversationId: 'legacy', entityId: '', message });
    const deadline = Date.now() + 5_000;
    while ((await harness!.agent.getRun(runId))?.status !== 'completed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await harness!.agent.getRun(runId))?.status).toBe('completed');
    expect(await store.version('legacy')).toBe(2);
  });
});
