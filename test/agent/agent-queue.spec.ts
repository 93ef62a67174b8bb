import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { AgentQueueOptions, AgentRunsOptions } from '../../src/modules/agent/agent.options.js';
import type { AgentRunRecord } from '../../src/modules/agent/interfaces/agent-run.interface.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { LlmConnectionError, LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { waitFor } from '../support/wait-for.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';

const prefix = `test-bull-${process.pid}`;
/** A 3-master Redis Cluster of the test's own: the Bull driver with its queue, leases and runs on it. */
const cluster = await OwnRedisCluster.start();

/** The Bull driver with its runs on the Redis at `url`. */
function bullOn(url: string): [AgentQueueOptions, AgentRunsOptions] {
  return [
    {
      driver: 'bull',
      redisUrl: url,
      prefix,
      name: `runs-${Date.now()}`,
      attempts: 3,
      backoffMs: 20,
      leaseMs: 2_000,
      lockDurationMs: 2_000,
    },
    { backend: 'redis', url, keyPrefix: `${prefix}:runs:` },
  ];
}

const drivers: Array<[string, AgentQueueOptions, AgentRunsOptions]> = [
  ['inline', { driver: 'inline', attempts: 3, backoffMs: 20 }, { backend: 'memory' }],
  ['bull', ...bullOn(TEST_REDIS_URL)],
  ['bull on a Redis Cluster', ...bullOn(cluster.url)],
];

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const settled = (record: AgentRunRecord | undefined) =>
  record?.status === 'completed' || record?.status === 'failed';

describe.each(drivers)('queued runs (%s driver)', (_name, queue, runs) => {
  const chat = () => ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL });

  it('runs the jobs of one conversation one at a time, in submission order', async () => {
    const llm = new ScriptedLlm(Array.from({ length: 5 }, (_, i) => ({ content: `answer ${i}` })));
    harness = await bootAgent({ llm, queue, runs }, [chat()]);
    const conversationId = `queued-order-${Date.now()}`;
    const runIds: string[] = [];
    for (let i = 0; i < 5; i += 1)
      runIds.push((await harness.agent.submit({ conversationId, message: `question ${i}` })).runId);
    expect((await harness.agent.getRun(runIds[4]!))?.status).toMatch(/queued|running|completed/);
    for (const runId of runIds)
      await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, runId);
    const stored = await harness.moduleRef
      .get<ChatMemoryStore>(CHAT_MEMORY_STORE)
      .get(conversationId);
    expect(stored.map((m) => m.content)).toEqual(
      Array.from({ length: 5 }, (_, i) => [`question ${i}`, `answer ${i}`]).flat(),
    );
    expect(stored.filter((m) => m.role === 'user').map((m) => m.id)).toEqual(
      runIds.map((id) => `${id}:0`),
    );
  }, 60_000);

  it('retries a transient failure in the middle of a turn; the turn is stored exactly once', async () => {
    let toolRuns = 0;
    const tool: KernelToolDefinition = {
      name: 'note',
      description: 'notes',
      parameters: { type: 'object' },
      handler: () => ++toolRuns,
    };
    const llm = new ScriptedLlm([
      { toolCalls: [{ id: 'n1', name: 'note', arguments: '{}' }] },
      { fail: new LlmConnectionError('test', new Error('reset')) },
      { content: 'noted' },
    ]);
    harness = await bootAgent({ llm, queue, runs, tools: [tool] }, [chat()]);
    const conversationId = `queued-retry-${Date.now()}`;
    const { runId } = await harness.agent.submit({ conversationId, message: 'note this' });
    const record = await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, 'the run');
    expect(record).toMatchObject({ status: 'completed', result: { version: 4 } });
    expect(llm.calls).toHaveLength(3);
    expect(toolRuns).toBe(1);
    const stored = await harness.moduleRef
      .get<ChatMemoryStore>(CHAT_MEMORY_STORE)
      .get(conversationId);
    expect(stored).toEqual(record!.result!.messages);
  }, 60_000);

  it('does not retry a final error, and reports it', async () => {
    const llm = new ScriptedLlm([
      { fail: new LlmResponseError('test', 400, 'bad request') },
      { content: 'never' },
    ]);
    harness = await bootAgent({ llm, queue, runs }, [chat()]);
    const { runId } = await harness.agent.submit({
      conversationId: `queued-final-${Date.now()}`,
      message: 'x',
    });
    const record = await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, 'the run');
    expect(record).toMatchObject({ status: 'failed', error: { name: 'LlmResponseError' } });
    expect(llm.calls).toHaveLength(1);
  }, 60_000);

  it('takes run ids that name the queue’s own keys (wait, active, delayed, …) as plain ids', async () => {
    const ids = ['wait', 'active', 'delayed', 'id', 'completed'];
    const llm = new ScriptedLlm(ids.map((id) => ({ content: `answer ${id}` })));
    harness = await bootAgent({ llm, queue, runs }, [chat()]);
    const conversationId = `queued-keys-${Date.now()}`;
    const suffix = Math.random().toString(36).slice(2, 6);
    // Fresh ids per run of the suite, but the first is exactly 'wait' on a fresh queue name.
    const runIds = ids.map((id, i) => (i === 0 ? id : `${id}-${suffix}`));
    for (const runId of runIds)
      await harness.agent.submit({ conversationId, message: runId, runId });
    for (const runId of runIds)
      expect(
        await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, runId),
      ).toMatchObject({ status: 'completed' });
  }, 60_000);
});

describe('a Bull queue of your own', () => {
  it('runs queued turns on it, with the conversation leases on its client', async () => {
    const Bull = (await import('bull')).default;
    const own = new Bull(`own-${Date.now()}`, TEST_REDIS_URL, { prefix });
    try {
      const llm = new ScriptedLlm([{ content: 'from your queue' }]);
      harness = await bootAgent(
        {
          llm,
          queue: { driver: 'bull', queue: own, attempts: 2, backoffMs: 20 },
          runs: { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `${prefix}:own-runs:` },
        },
        [ChatMemoryModule.forRoot({ backend: 'memory' })],
      );
      const { runId } = await harness.agent.submit({ conversationId: 'own-queue', message: 'hi' });
      const record = await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, runId);
      expect(record).toMatchObject({ status: 'completed' });
      expect(record?.result?.reply.content).toBe('from your queue');
    } finally {
      await harness?.close();
      harness = undefined;
      await own.close();
    }
  }, 60_000);
});

afterEach(async () => {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true }); // no socket unless a test runs
  try {
    await deleteRedisKeys(redis, `${prefix}*`);
  } finally {
    await redis.quit();
  }
});

afterAll(() => cluster.stop());
