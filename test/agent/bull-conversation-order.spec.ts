import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lease } from '../../src/common/lease.js';
import { AGENT_QUEUE, AGENT_RUNS } from '../../src/modules/agent/agent.constants.js';
import type { AgentRuns } from '../../src/modules/agent/agent.providers.js';
import type { AgentRunRecord } from '../../src/modules/agent/interfaces/agent-run.interface.js';
import type { AgentQueue } from '../../src/modules/agent/queue/agent-queue.interface.js';
import type { ConversationSequencer } from '../../src/modules/agent/queue/conversation-sequencer.js';
import type { LlmRequest } from '../../src/modules/llm/interfaces/llm.interface.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { waitFor } from '../support/wait-for.js';

const prefix = `test-bull-order-${process.pid}`;
const admin = new Redis(TEST_REDIS_URL, { lazyConnect: true });
afterAll(async () => {
  await deleteRedisKeys(admin, `${prefix}*`);
  await admin.quit();
});

let harness: AgentHarness | undefined;
afterEach(async () => {
  releaseHeld(); // a failed test must not leave a model call held through the harness's close
  await harness?.close();
  harness = undefined;
});

const LEASE_MS = 400;
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;
const settled = (record: AgentRunRecord | undefined) =>
  record?.status === 'completed' || record?.status === 'failed';

/** Holds the answer to a message that starts with "held" until the test releases it. */
let held: Promise<void> = Promise.resolve();
let releaseHeld = () => {};

/** A model that answers every call with its own user message, slowly when it says "slower". */
function echoingLlm(): ScriptedLlm {
  const llm = new ScriptedLlm();
  llm.chat = async (request: LlmRequest) => {
    const asked = String(request.messages.at(-1)?.content ?? '');
    if (asked.startsWith('held')) await held;
    if (asked.startsWith('slower')) await sleep(2_500);
    return {
      message: { role: 'assistant', content: `re: ${asked}` },
      finishReason: 'stop',
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    };
  };
  return llm;
}

async function bootBull(concurrency: number) {
  harness = await bootAgent({
    llm: echoingLlm(),
    runLeaseMs: LEASE_MS,
    runs: { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `${prefix}:runs:` },
    queue: {
      driver: 'bull',
      redisUrl: TEST_REDIS_URL,
      prefix,
      name: unique('order'),
      concurrency,
      attempts: 3,
      backoffMs: 20,
    },
  });
  return harness.agent;
}

/** The Bull queue's per-conversation order. */
function sequencer(): ConversationSequencer {
  const queue = harness!.moduleRef.get<Lease<AgentQueue>>(AGENT_QUEUE).value;
  return (queue as unknown as { sequencer: ConversationSequencer }).sequencer;
}

/** A `queued` run at the head of the conversation's order with no job in the queue. */
async function headWithoutJob(conversationId: string, runId: string, holder: { owner?: string }) {
  const runs = harness!.moduleRef.get<Lease<AgentRuns>>(AGENT_RUNS).value;
  await runs.records.set(runId, conversationId, 'queued', holder);
  await sequencer().join(conversationId, runId);
}

const completedAt = async (runId: string) => {
  const record = await waitFor(() => harness!.agent.getRun(runId), settled, 20_000, runId);
  expect(record?.status).toBe('completed');
  return record!.updatedAt;
};

describe('the Bull driver’s per-conversation order', () => {
  it('keeps waiting runs out of the worker slots: another conversation goes at once', async () => {
    const agent = await bootBull(2);
    const busy = unique('busy');
    held = new Promise((resolve) => (releaseHeld = resolve));
    const head = await agent.submit({ conversationId: busy, message: 'held head' });
    await waitFor(
      () => agent.getRun(head.runId),
      (r) => r?.status === 'running',
      5_000,
      'head',
    );
    const waiting = [];
    for (let i = 0; i < 4; i += 1)
      waiting.push(await agent.submit({ conversationId: busy, message: `waits ${i}` }));
    // Each waiting run's job has been taken from the queue and parked (what frees its slot).
    for (const run of waiting)
      await waitFor(
        () => sequencer().parkedJob(busy, run.runId),
        (jobId) => jobId !== undefined,
        5_000,
        `${run.runId} parked`,
      );
    const started = Date.now();
    const other = await agent.submit({ conversationId: unique('other'), message: 'quick' });
    // The head holds one slot until released: if the parked runs held the other, this would wait
    // for ever (and fail at its deadline).
    const otherDone = await completedAt(other.runId);
    expect((await agent.getRun(head.runId))?.status).toBe('running');
    releaseHeld();
    await completedAt(head.runId);
    for (const run of waiting) await completedAt(run.runId);
    console.info(
      `Parked runs hold no slot: with 2 slots, one busy conversation and 4 runs waiting behind it, another conversation's turn completed ${otherDone - started} ms after its submission`,
    );
  }, 30_000);

  it('wakes the next run of the conversation as soon as the one ahead settles', async () => {
    const agent = await bootBull(2);
    const conversationId = unique('wake');
    const first = await agent.submit({ conversationId, message: 'slower first' });
    const second = await agent.submit({ conversationId, message: 'second' });
    const firstDone = await completedAt(first.runId);
    const secondDone = await completedAt(second.runId);
    // Parked at 0.25, 0.75, 1.75 and 3.75 s (delays doubling from 250 ms) while the first ran 2.5 s:
    // without a wake-up it would look again only 1.25 s after the first completed.
    expect(secondDone - firstDone).toBeLessThan(600);
    console.info(
      `Wake-up: the next run completed ${secondDone - firstDone} ms after the one ahead`,
    );
  }, 30_000);

  it('evicts a head nobody will run (its submitter died before the queue had it)', async () => {
    const agent = await bootBull(2);
    const conversationId = unique('orphan');
    // What a submitter killed between joining the order and adding the job leaves behind.
    const orphan = unique('orphan-run');
    await headWithoutJob(conversationId, orphan, { owner: 'dead-process' });
    const started = Date.now();
    const next = await agent.submit({ conversationId, message: 'after the orphan' });
    const done = await completedAt(next.runId);
    // Blocked at most until the dead submitter's lease ran out, plus a parked delay or two.
    expect(done - started).toBeLessThan(LEASE_MS + 2_000);
    expect(done - started).toBeGreaterThanOrEqual(LEASE_MS - 100);
  }, 30_000);

  it('evicts a queued head whose job the queue lost (a Redis without persistence restarted)', async () => {
    const agent = await bootBull(2);
    const conversationId = unique('lost');
    const lost = unique('lost-run');
    await headWithoutJob(conversationId, lost, {}); // handed to the queue (no lease), job gone
    const started = Date.now();
    const next = await agent.submit({ conversationId, message: 'after the lost one' });
    expect((await completedAt(next.runId)) - started).toBeLessThan(1_500);
    // Its record says what became of it, so its key runs it again.
    expect(await agent.getRun(lost)).toMatchObject({
      status: 'failed',
      error: { name: 'RunLostError' },
    });
  }, 30_000);
});
