import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import type { MessageRecallHit } from '../../src/modules/longterm/recall/recall.interface.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import type { LlmRequest, LlmResponse } from '../../src/modules/llm/interfaces/llm.interface.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { longtermUris } from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const uris = longtermUris('message-recall-agent.sqlite');

const blockOf = (llm: ScriptedLlm, call: number) =>
  llm.calls[call]!.messages.find(
    (m) => m.role === 'user' && String(m.content).startsWith('<recalled-memory>'),
  )?.content as string | undefined;

describe.each(uris)('agent message recall on %s', (_label, uri) => {
  const boot = async (llm: ScriptedLlm) => {
    harness = await bootAgent({ llm, recall: { messages: true, k: 5 } }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({
        uri: uri(),
        sweep: false,
        keyPrefix: 'test:agent-message-recall:',
        recall: { embedder: new HashingEmbeddingModel(), backfill: false },
      }),
    ]);
    return harness.moduleRef.get(LongtermMemoryService);
  };
  const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

  it('indexes each committed turn and recalls it in the entity’s other conversations', async () => {
    const llm = new ScriptedLlm([
      { content: 'Biscuit is a lovely name for a greyhound.' },
      { content: 'You told me about Biscuit.' },
      { content: 'Enjoy the walk.' },
    ]);
    const longterm = await boot(llm);
    const entityId = unique('ada');
    const [first, second] = [unique('first'), unique('second')];
    const runId = unique('run');
    await harness!.agent.run({
      conversationId: first,
      entityId,
      runId,
      message: 'I adopted a greyhound named Biscuit',
    });
    // A second attempt of the same run (a retry) changes nothing.
    await harness!.agent.run({
      conversationId: first,
      entityId,
      runId,
      message: 'I adopted a greyhound named Biscuit',
    });
    const indexed = await longterm.recall(entityId, 'greyhound biscuit', { scope: 'messages' });
    expect(
      (indexed as MessageRecallHit[])
        .map(({ message }) => [message.position, message.role, message.messageId, message.text])
        .sort(),
    ).toEqual([
      [1, 'user', `${runId}:0`, 'I adopted a greyhound named Biscuit'],
      [2, 'assistant', `${runId}:1`, 'Biscuit is a lovely name for a greyhound.'],
    ]);
    expect(blockOf(llm, 0)).toBeUndefined();

    await harness!.agent.run({
      conversationId: second,
      entityId,
      message: 'What is my greyhound called?',
    });
    const block = blockOf(llm, 1)!;
    expect(block).toContain('[said by the user in another conversation, ');
    expect(block).toContain('"I adopted a greyhound named Biscuit"');
    expect(block).toContain('[said by the assistant in another conversation, ');

    // Back in the first conversation: its own messages are in the window, not in the block.
    await harness!.agent.run({ conversationId: first, entityId, message: 'greyhound walk today' });
    const again = blockOf(llm, 2)!;
    expect(again).toContain('What is my greyhound called?');
    expect(again).not.toContain('adopted');

    await harness!.agent.clearConversation(second);
    const left = (await longterm.recall(entityId, 'greyhound', {
      scope: 'messages',
    })) as MessageRecallHit[];
    expect(new Set(left.map((hit) => hit.message.conversationId))).toEqual(new Set([first]));
    await harness!.agent.eraseEntity(entityId);
    expect(await longterm.recall(entityId, 'greyhound', { scope: 'all' })).toEqual([]);
  });

  it('fences a turn whose conversation is deleted once its model call is out, however slow its note', async () => {
    // The conversation is deleted while the model answers; the directory entry the turn writes as
    // it begins is slow to store (a loaded database), which must not let the turn index afterwards.
    const hooks: { onCall?: () => Promise<void> } = {};
    class DeletingLlm extends ScriptedLlm {
      override async chat(request: LlmRequest): Promise<LlmResponse> {
        await hooks.onCall?.();
        return super.chat(request);
      }
    }
    const llm = new DeletingLlm([{ content: 'Kiwi is a fine name for a parrot.' }]);
    const longterm = await boot(llm);
    const note = longterm.noteConversation.bind(longterm);
    jest
      .spyOn(longterm, 'noteConversation')
      .mockImplementation(async (...args) =>
        new Promise((resolve) => setTimeout(resolve, 150)).then(() => note(...args)),
      );
    const entityId = unique('mid');
    const conversationId = unique('conversation');
    hooks.onCall = () => harness!.agent.clearConversation(conversationId);
    await harness!.agent.run({ conversationId, entityId, message: 'My parrot is called Kiwi' });
    expect(await longterm.recall(entityId, 'parrot kiwi', { scope: 'messages' })).toEqual([]);
  });
});
