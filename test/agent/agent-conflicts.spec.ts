import { afterEach, describe, expect, it } from '@jest/globals';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ConversationVersionConflictError } from '../../src/modules/chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ConflictPolicy } from '../../src/modules/agent/agent-runner.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
} from '../../src/modules/llm/interfaces/llm.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

/** Answers with its name; its first answer waits for `release`, so two turns overlap. */
class GatedLlm implements LlmAdapter {
  calls = 0;
  constructor(
    private readonly name: string,
    private readonly gate: Promise<void>,
  ) {}
  async chat(_request: LlmRequest): Promise<LlmResponse> {
    this.calls += 1;
    if (this.calls === 1) await this.gate;
    return {
      message: { role: 'assistant', content: `${this.name} answer ${this.calls}` },
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    };
  }
  stream(request: LlmRequest): Promise<LlmResponse> {
    return this.chat(request);
  }
}

const harnesses: AgentHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

/** Two separate apps (their own pools) running agents on one Postgres conversation. */
async function twoAgents(policy: ConflictPolicy) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const a = new GatedLlm('A', Promise.resolve());
  const b = new GatedLlm('B', gate);
  for (const llm of [a, b]) {
    harnesses.push(
      await bootAgent({ llm, conflictPolicy: policy }, [
        ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL }),
      ]),
    );
  }
  const store = harnesses[0]!.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
  const conversationId = `conflict-${policy}-${Date.now()}`;
  // B takes its base first and waits inside its model call; A commits meanwhile.
  const bRun = harnesses[1]!.agent
    .run({ conversationId, message: 'from B' })
    .finally(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const aResult = await harnesses[0]!.agent.run({ conversationId, message: 'from A' });
  release();
  return { aResult, bRun, store, conversationId, b };
}

describe('two agents on one conversation', () => {
  it('reject: the later commit fails with a version conflict and nothing of its turn is stored', async () => {
    const { aResult, bRun, store, conversationId } = await twoAgents('reject');
    const error = await rejectionOf(bRun);
    expect(error).toBeInstanceOf(ConversationVersionConflictError);
    expect(await store.get(conversationId)).toEqual(aResult.messages);
  });

  it('retry: the later turn runs again on a fresh base and lands after, never interleaved', async () => {
    const { aResult, bRun, store, conversationId, b } = await twoAgents('retry');
    const bResult = await bRun;
    expect(b.calls).toBe(2);
    expect(bResult.reply.content).toBe('B answer 2');
    expect(bResult.version).toBe(4);
    expect(await store.get(conversationId)).toEqual([...aResult.messages, ...bResult.messages]);
  });
});

describe('a conflict retry is a new attempt', () => {
  it('gives its tool calls idempotency keys of their own, even when the provider reuses call ids', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const keys: string[] = [];
    let calls = 0;
    const b: LlmAdapter = {
      async chat(request: LlmRequest): Promise<LlmResponse> {
        calls += 1;
        if (calls === 1) await gate;
        const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };
        // Every attempt: one round calling `note` with the provider's reused id, then an answer.
        return request.messages.at(-1)?.role === 'tool'
          ? { message: { role: 'assistant', content: 'B done' }, usage }
          : {
              message: {
                role: 'assistant',
                content: null,
                toolCalls: [{ id: 'call_0', name: 'note', arguments: '{}' }],
              },
              usage,
            };
      },
      stream(request: LlmRequest) {
        return this.chat(request);
      },
    };
    const note = {
      name: 'note',
      description: 'notes',
      parameters: { type: 'object', properties: {} },
      handler: (_args: Record<string, unknown>, context: { idempotencyKey: string }) => {
        keys.push(context.idempotencyKey);
        return 'ok';
      },
    };
    const chat = () => ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL });
    harnesses.push(
      await bootAgent({ llm: { provider: 'echo' } }, [chat()]),
      await bootAgent({ llm: b, tools: [note], conflictPolicy: 'retry' }, [chat()]),
    );
    const conversationId = `conflict-keys-${Date.now()}`;
    const bRun = harnesses[1]!.agent.run({
      conversationId,
      message: 'from B',
      runId: `b-${Date.now()}`,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await harnesses[0]!.agent.run({ conversationId, message: 'from A' });
    release();
    const result = await bRun;
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(`${result.runId}:0:call_0`);
    expect(keys[1]).toBe(`${result.runId}/1:0:call_0`);
  });
});
