import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { queuedAppEnv, storedRoles, waitUntilCompleted } from './queued-runs.js';

const ASYNC_RUNS = 12;
const SYNC_TURNS = 8;
const KILLS = 3;

/**
 * `CLIENT KILL ADDR` for every connection the app's process holds to the shared Redis (found by
 * its pid with `ss`): the Bull clients, the blocking one included. Returns how many were killed.
 */
async function killAppConnections(admin: Redis, pid: number, redisPort: number): Promise<number> {
  const sockets = execFileSync(
    'ss',
    ['-tnpH', 'state', 'established', `( dport = :${redisPort} )`],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((line) => line.includes(`pid=${pid},`))
    .map((line) => line.trim().split(/\s+/)[2]!);
  let killed = 0;
  for (const address of sockets)
    killed += Number(
      await admin.client('KILL', 'ADDR', address).then(
        () => 1,
        () => 0,
      ),
    );
  return killed;
}

/**
 * The shared Redis (queue, leases) keeps running, but every connection of the app is killed three
 * times while async runs are queued and running and sync turns are in flight: the sync turns
 * answer (or fail cleanly), every async run completes, and each conversation holds its turn
 * exactly once or, for a failed sync turn, nothing.
 */
describe('CLIENT KILL of the app’s connections to the shared Redis under load', () => {
  const llm = new FakeLlmServer();
  const admin = new Redis(TEST_REDIS_URL);
  let app: RunningApp;

  beforeAll(async () => {
    const llmUrl = await llm.start();
    app = await bootApp(queuedAppEnv(TEST_REDIS_URL, llmUrl, 'kill'));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await admin.quit();
    await llm.stop();
  });

  it('loses and duplicates nothing, and recovers without a restart', async () => {
    llm.fallback = () => ({ ...openAiCompletion('Done.'), delayMs: 600 });
    const post = (id: string, query = '') =>
      fetch(`${app.url}/conversations/${id}/turns${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'question' }),
      });
    const runs: Array<{ id: string; runId: string }> = [];
    for (let i = 0; i < ASYNC_RUNS; i += 1) {
      const id = `kill-async-${randomUUID().slice(0, 8)}`;
      const response = await post(id, '?async=true');
      expect(response.status).toBe(202);
      runs.push({ id, runId: ((await response.json()) as { runId: string }).runId });
    }
    const syncIds = Array.from(
      { length: SYNC_TURNS },
      () => `kill-sync-${randomUUID().slice(0, 8)}`,
    );
    const syncTurns = Promise.all(syncIds.map((id) => post(id).then((r) => r.status)));
    let killed = 0;
    for (let k = 0; k < KILLS; k += 1) {
      await sleep(300);
      killed += await killAppConnections(
        admin,
        app.pid,
        Number(new URL(TEST_REDIS_URL).port || 6379),
      );
    }
    expect(killed).toBeGreaterThanOrEqual(KILLS);
    const syncStatuses = await syncTurns;
    // A sync turn answers, or fails with a clean 5xx; never a hang or a 4xx.
    for (const status of syncStatuses) expect([201, 500, 502, 503, 504]).toContain(status);

    const started = performance.now();
    expect(await waitUntilCompleted(app, runs)).toEqual([]);
    const roles = (id: string) => storedRoles(app, id);
    for (const { id } of runs) expect(await roles(id)).toEqual(['user', 'assistant']);
    // A turn that answered is stored once; one that failed left no partial turn (nothing, or the
    // whole turn if it committed before the failure).
    for (const [i, id] of syncIds.entries()) {
      const stored = await roles(id);
      if (syncStatuses[i] === 201) expect(stored).toEqual(['user', 'assistant']);
      else expect([[], ['user', 'assistant']]).toContainEqual(stored);
    }
    // Recovered: a new turn on the same process is clean.
    llm.fallback = () => openAiCompletion('After.');
    const after = `kill-after-${randomUUID().slice(0, 8)}`;
    expect((await post(after)).status).toBe(201);
    expect(await roles(after)).toEqual(['user', 'assistant']);
    console.info(
      `CLIENT KILL: ${killed} connections killed in ${KILLS} rounds; sync turns ${syncStatuses.join(',')}; ${ASYNC_RUNS} async runs all completed ${Math.round(performance.now() - started)} ms after the last kill`,
    );
  }, 90_000);
});
