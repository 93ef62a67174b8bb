import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiAnswer, openAiCompletion } from '../support/fake-llm-server.js';
import { forcedTool, userMessageId } from '../support/formation-requests.js';
import { freePort } from '../support/free-port.js';
import { OwnRedis } from '../support/own-redis.js';
import { waitFor } from '../support/wait-for.js';

const ENTITIES = 6;

interface FormedMemoryBody {
  text: string;
  sources: Array<{ runId: string }>;
}

/**
 * The Redis that holds everything formation touches — the conversations, the runs (each job's
 * recorded model answers and its note), and the formed memories — killed (SIGKILL, AOF fsynced on
 * every write) and started again while the jobs of six committed turns are between their model
 * calls and their writes, for longer than a command waits: the attempts under way fail and are
 * retried with backoff, replaying the model answers they recorded. Once Redis is back, each turn's
 * memory is formed exactly once: one memory per entity resting on its turn's run, one written job,
 * no failure, nothing formed twice.
 */
describe('formation jobs while their Redis (AOF) is killed and started again', () => {
  const llm = new FakeLlmServer();
  let redis: OwnRedis;
  let app: RunningApp;
  /** Resolved at the first consolidation request: jobs are between their model calls. */
  let choosing!: () => void;
  const firstChoice = new Promise<void>((resolve) => (choosing = resolve));
  /**
   * Resolved once Redis is killed: the first consolidation answer is held until then, so that job
   * gets its answer with Redis gone and its attempt fails after the call, whatever the timing.
   */
  let redisKilled!: () => void;
  const killed = new Promise<void>((resolve) => (redisKilled = resolve));
  const extractions = new Map<string, number>();
  let choices = 0;

  beforeAll(async () => {
    const llmUrl = await llm.start();
    redis = new OwnRedis(await freePort());
    await redis.start();
    const url = `redis://127.0.0.1:${redis.port}`;
    llm.fallback = (request) => {
      const tool = forcedTool(request);
      if (tool === 'record_memories') {
        const hive = /I keep (\d+) hives/.exec(JSON.stringify(request.body))?.[1] ?? '?';
        extractions.set(hive, (extractions.get(hive) ?? 0) + 1);
        return {
          ...openAiCompletion('', [
            {
              id: 'call-1',
              name: tool,
              arguments: JSON.stringify({
                memories: [
                  {
                    text: `The user keeps ${hive} hives`,
                    kind: 'fact',
                    messageIds: [userMessageId(request)],
                  },
                ],
              }),
            },
          ]),
          delayMs: 150,
        };
      }
      if (tool === 'choose_operations') {
        choices += 1;
        const first = choices === 1;
        choosing();
        return {
          ...(first ? { waitFor: killed } : {}),
          ...openAiCompletion('', [
            {
              id: 'call-2',
              name: tool,
              arguments: JSON.stringify({ choices: [{ candidate: 0, op: 'ADD' }] }),
            },
          ]),
          delayMs: 300,
        };
      }
      return openAiAnswer('Noted.')(request);
    };
    app = await bootApp({
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL: url,
      LONGTERM_MEMORY_URI: url,
      AGENT_QUEUE: 'inline',
      AGENT_FORMATION: 'model',
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await redis?.kill().catch(() => undefined);
    await llm.stop();
  });

  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${app.url}${path}`)).json()) as T;

  it('forms each memory exactly once after the restart', async () => {
    const prefix = `hives-${randomUUID().slice(0, 8)}`;
    const turns: Array<{ entity: string; runId: string }> = [];
    for (let i = 0; i < ENTITIES; i += 1) {
      const entity = `${prefix}-${i}`;
      const turn = await fetch(`${app.url}/conversations/c-${entity}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `I keep ${i} hives on the roof.`, entityId: entity }),
      });
      expect(turn.status).toBe(201);
      turns.push({ entity, runId: ((await turn.json()) as { runId: string }).runId });
    }
    // Jobs are under way: at least one has its extraction recorded and waits on its choice (held
    // until Redis is gone).
    await firstChoice;
    const before = app.output().length;
    await redis.kill();
    const killedAt = performance.now();
    redisKilled();
    // Redis stays down until the app's client gave up on the commands waiting for it (ioredis's
    // `maxRetriesPerRequest` reconnection attempts: about 10 s, longer on a busy machine; the app
    // warns of each refused command), so the held job's write is refused, not only waited through.
    // A fixed outage raced that moment on a loaded machine.
    await waitFor(
      async () => app.output().slice(before),
      (output) => output.includes('Reached the max retries per request limit'),
      100_000,
      'the app to give up on its waiting Redis commands',
    );
    const outageMs = Math.round(performance.now() - killedAt);
    await redis.start();
    const restartedAt = performance.now();

    const memoriesOf = (entity: string) =>
      get<{ memories: FormedMemoryBody[] }>(`/entities/${entity}/formed-memories?state=all`).then(
        (page) => page.memories,
      );
    let formed: FormedMemoryBody[][] = [];
    for (let i = 0; i < 300; i += 1) {
      formed = await Promise.all(turns.map(({ entity }) => memoriesOf(entity)));
      if (formed.every((memories) => memories.length > 0)) break;
      await sleep(100);
    }
    const tookMs = performance.now() - restartedAt;
    // Let any attempt still under way end: nothing may be written twice after it.
    await sleep(2_000);
    // The scenario held: a job's attempt failed after its consolidation was asked, and was retried.
    expect(choices).toBeGreaterThan(ENTITIES);
    for (const [i, { entity, runId }] of turns.entries()) {
      const memories = await memoriesOf(entity);
      expect(memories.map(({ text, sources }) => [text, sources.map((s) => s.runId)])).toEqual([
        [`The user keeps ${i} hives`, [runId]],
      ]);
      const jobs = await get<{ jobs: Array<{ runId: string }> }>(
        `/entities/${entity}/formation-jobs`,
      );
      expect(jobs.jobs.map((job) => job.runId)).toEqual([runId]);
      expect(
        (await get<{ failures: unknown[] }>(`/entities/${entity}/formation-failures`)).failures,
      ).toEqual([]);
    }
    console.info(
      `Formation over a Redis restart: ${ENTITIES} jobs, Redis down ${outageMs} ms, each memory formed once, all ${Math.round(tookMs)} ms after the restart; extractions per turn ${JSON.stringify(Object.fromEntries(extractions))}, ${choices} consolidation calls (each answer not recorded when Redis went away is asked again)`,
    );
  }, 240_000);
});
