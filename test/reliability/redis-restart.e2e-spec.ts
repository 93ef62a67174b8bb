import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import { queuedAppEnv, storedRoles, waitUntilCompleted } from './queued-runs.js';
import { OwnRedis } from '../support/own-redis.js';

const RUNS = 12;

/**
 * The Redis that holds the Bull queue killed and restarted (AOF on) while async turns are queued
 * and running: after it is back, every run completes, each turn is stored exactly once, no job is
 * lost.
 */
describe('Redis (AOF) killed and restarted while async runs are in flight', () => {
  const llm = new FakeLlmServer();
  let redis: OwnRedis;
  let app: RunningApp;

  beforeAll(async () => {
    const llmUrl = await llm.start();
    redis = new OwnRedis(await freePort());
    await redis.start();
    app = await bootApp(queuedAppEnv(`redis://127.0.0.1:${redis.port}`, llmUrl, 'aof'));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await redis?.kill().catch(() => undefined);
    await llm.stop();
  });

  it('completes every run exactly once after the restart', async () => {
    // Each model call takes 800 ms: runs are queued and running when Redis goes away.
    llm.fallback = () => ({ ...openAiCompletion('Done.'), delayMs: 800 });
    const runs: Array<{ id: string; runId: string }> = [];
    for (let i = 0; i < RUNS; i += 1) {
      const id = `aof-${randomUUID().slice(0, 8)}`;
      const response = await fetch(`${app.url}/conversations/${id}/turns?async=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: `question ${i}` }),
      });
      expect(response.status).toBe(202);
      runs.push({ id, runId: ((await response.json()) as { runId: string }).runId });
    }
    const status = async (runId: string) =>
      ((await (await fetch(`${app.url}/runs/${runId}`)).json()) as { status: string }).status;
    await sleep(300);
    // The scenario holds: runs are still in flight when Redis dies.
    const before = await Promise.all(runs.map((run) => status(run.runId)));
    expect(before.filter((state) => state !== 'completed').length).toBeGreaterThan(0);
    await redis.kill();
    await sleep(1_000);
    await redis.start();
    const started = performance.now();
    expect(await waitUntilCompleted(app, runs)).toEqual([]);
    for (const { id } of runs) expect(await storedRoles(app, id)).toEqual(['user', 'assistant']);
    console.info(
      `Redis AOF restart: ${before.filter((state) => state !== 'completed').length} of ${RUNS} runs in flight at the kill; all completed ${Math.round(performance.now() - started)} ms after Redis was back; ${llm.requests.length} model calls`,
    );
  }, 90_000);
});
