import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { fileURLToPath } from 'node:url';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { AgentModuleOptions } from '../../src/modules/agent/agent.options.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
} from '../../src/modules/llm/interfaces/llm.interface.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { startTypeScriptChild } from '../support/child-process.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { waitFor } from '../support/wait-for.js';

const WORKER = fileURLToPath(new URL('../support/agent-worker.child.ts', import.meta.url));
const prefix = `test-stalled-${process.pid}`;
const name = `runs-${Date.now()}`;
const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true }); // no socket unless a test runs
const harnesses: AgentHarness[] = [];

afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  await deleteRedisKeys(redis, `${prefix}*`);
  await redis.quit();
});

/** The second worker's model: it only ever gets the call after the tool result. */
class FinishingLlm implements LlmAdapter {
  readonly seen: number[] = [];
  async chat(request: LlmRequest): Promise<LlmResponse> {
    this.seen.push(request.messages.filter((m) => m.role === 'tool').length);
    return {
      message: { role: 'assistant', content: 'finished after the crash' },
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    };
  }
  stream(request: LlmRequest): Promise<LlmResponse> {
    return this.chat(request);
  }
}

describe('a queue worker killed mid-run', () => {
  it('leaves a stalled job that another worker completes exactly once', async () => {
    const queue = {
      driver: 'bull' as const,
      redisUrl: TEST_REDIS_URL,
      prefix,
      name,
      leaseMs: 1_500,
      lockDurationMs: 1_500,
      backoffMs: 20,
    };
    const common: AgentModuleOptions = {
      runs: { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `${prefix}:runs:` },
      tools: [
        {
          name: 'side_effect',
          description: 'counts',
          parameters: { type: 'object' },
          handler: () => redis.incr(`${prefix}:side-effects`),
        },
      ],
    };
    const chat = () => ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL });
    const producer = await bootAgent(
      { ...common, llm: new FinishingLlm(), queue: { ...queue, worker: false } },
      [chat()],
    );
    harnesses.push(producer);

    const worker = startTypeScriptChild(WORKER, [name, prefix]);
    await worker.waitForLine('ready');
    const conversationId = `stalled-${Date.now()}`;
    const { runId } = await producer.agent.submit({ conversationId, message: 'do the thing' });
    await worker.waitForLine('stuck');
    worker.process.kill('SIGKILL');
    await worker.exited.catch(() => undefined);
    expect(await redis.get(`${prefix}:side-effects`)).toBe('1');
    expect((await producer.agent.getRun(runId))?.status).toBe('running');

    const finishing = new FinishingLlm();
    const rescuer = await bootAgent({ ...common, llm: finishing, queue }, [chat()]);
    harnesses.push(rescuer);
    const record = await waitFor(
      () => rescuer.agent.getRun(runId),
      (r) => r?.status === 'completed',
      30_000,
      'the rescued run',
    );

    const store = rescuer.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const stored = await store.get(conversationId);
    expect(stored).toEqual(record!.result!.messages);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(stored.at(-1)!.content).toBe('finished after the crash');
    // The first model call and the tool step were replayed from the run cache: the tool ran once.
    expect(finishing.seen).toEqual([1]);
    expect(await redis.get(`${prefix}:side-effects`)).toBe('1');
  }, 60_000);
});
