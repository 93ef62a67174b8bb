import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import { storedRoles, waitUntilCompleted } from './queued-runs.js';

const CONVERSATIONS = 12;
const TURNS = 6;

/**
 * Two processes of the app with every Redis use on a 3-master Redis Cluster of the test's own,
 * named by `REDIS_URL=redis+cluster://…`: chat history, runs and the conversation directory,
 * long-term memory, working memory, the rate-limit counters, the conversation sequencer and the
 * Bull queue (both processes work it). Turns go through both entrances, synchronous and queued.
 */
describe('Redis Cluster: the app over HTTP with every Redis use on a 3-master cluster', () => {
  let cluster: OwnRedisCluster;
  const apps: RunningApp[] = [];
  const prefix = `cluster-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    cluster = await OwnRedisCluster.start();
    const env = {
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL: cluster.url,
      LONGTERM_MEMORY_URI: cluster.url,
      QUEUE_PREFIX: prefix,
      QUEUE_LOCK_DURATION_MS: '5000',
      QUEUE_STALLED_INTERVAL_MS: '2000',
      // On, but out of reach: every request runs the counter script on the cluster.
      RATE_LIMIT_MAX: '1000000',
      RATE_LIMIT_TURNS_MAX: '1000000',
    };
    for (let i = 0; i < 2; i += 1) apps.push(await bootApp(env));
  }, 90_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await cluster?.stop();
  });

  const send = (app: RunningApp, method: string, path: string, body?: object) =>
    fetch(`${app.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('reports the cluster healthy', async () => {
    const health = (await (await fetch(`${apps[0]!.url}/health`)).json()) as {
      status: string;
    };
    expect(health.status).toBe('ok');
  });

  it('stores every turn exactly once, in order, synchronous and queued, through both processes', async () => {
    const run = randomUUID().slice(0, 8);
    const queued: Array<{ runId: string }> = [];
    const conversation = async (c: number) => {
      const id = `cluster-${run}-${c}`;
      for (let t = 0; t < TURNS; t += 1) {
        const entrance = apps[(c + t) % 2]!;
        if (t % 2 === 0) {
          const response = await send(entrance, 'POST', `/conversations/${id}/turns`, {
            message: `turn ${t}`,
          });
          expect(response.status).toBe(201);
          await response.arrayBuffer();
          continue;
        }
        const accepted = await send(entrance, 'POST', `/conversations/${id}/turns?async=true`, {
          message: `turn ${t}`,
        });
        expect(accepted.status).toBe(202);
        const { runId } = (await accepted.json()) as { runId: string };
        queued.push({ runId });
        // The next turn goes in once this one is settled: the order is then the client's own.
        expect(await waitUntilCompleted(apps[(c + t + 1) % 2]!, [{ runId }])).toEqual([]);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONVERSATIONS }, (_, c) => conversation(c)));
    const seconds = (performance.now() - started) / 1000;

    for (let c = 0; c < CONVERSATIONS; c += 1) {
      const id = `cluster-${run}-${c}`;
      expect(await storedRoles(apps[c % 2]!, id)).toEqual(
        Array.from({ length: TURNS * 2 }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant')),
      );
      const page = (await (
        await fetch(`${apps[0]!.url}/conversations/${id}/messages?last=1000`)
      ).json()) as {
        version: number;
        messages: Array<{ role: string; content: string }>;
      };
      expect(page.version).toBe(TURNS * 2);
      expect(page.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
        Array.from({ length: TURNS }, (_, t) => `turn ${t}`),
      );
    }
    const listed = (await (await fetch(`${apps[1]!.url}/conversations?limit=100`)).json()) as {
      conversations: Array<{ conversationId: string }>;
    };
    expect(
      listed.conversations.filter((entry) => entry.conversationId.startsWith(`cluster-${run}-`)),
    ).toHaveLength(CONVERSATIONS);
    console.info(
      `Redis Cluster: ${CONVERSATIONS} conversations × ${TURNS} turns through 2 processes (${queued.length} queued) in ${seconds.toFixed(1)} s; 0 lost, 0 doubled`,
    );
  }, 120_000);

  it('runs queued turns of one conversation one at a time, submitted at once to both processes', async () => {
    const id = `cluster-burst-${randomUUID().slice(0, 8)}`;
    const runs = await Promise.all(
      Array.from({ length: 8 }, async (_, t) => {
        const accepted = await send(apps[t % 2]!, 'POST', `/conversations/${id}/turns?async=true`, {
          message: `burst ${t}`,
        });
        expect(accepted.status).toBe(202);
        return (await accepted.json()) as { runId: string };
      }),
    );
    expect(await waitUntilCompleted(apps[1]!, runs)).toEqual([]);
    const page = (await (
      await fetch(`${apps[0]!.url}/conversations/${id}/messages?last=1000`)
    ).json()) as {
      messages: Array<{ role: string; content: string }>;
    };
    expect(page.messages.map((m) => m.role)).toEqual(
      Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant')),
    );
    const asked = page.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect([...asked].sort()).toEqual(Array.from({ length: 8 }, (_, t) => `burst ${t}`).sort());
  }, 60_000);

  it('converges concurrent long-term writes to the highest seq and finds them by prefix', async () => {
    const entity = `cluster-entity-${randomUUID().slice(0, 8)}`;
    const seqs = Array.from({ length: 30 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    const statuses = await Promise.all(
      seqs.map(async (seq, i) => {
        const response = await send(
          apps[i % 2]!,
          'PUT',
          `/entities/${entity}/memories/k-${seq % 3}`,
          {
            value: `v${seq}`,
            seq,
          },
        );
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    const found = (await (
      await fetch(`${apps[1]!.url}/entities/${entity}/memories?prefix=k-`)
    ).json()) as { records: Array<{ key: string; value: string; seq: number }> };
    expect(found.records.map(({ key, value, seq }) => ({ key, value, seq }))).toEqual([
      { key: 'k-0', value: 'v30', seq: 30 },
      { key: 'k-1', value: 'v28', seq: 28 },
      { key: 'k-2', value: 'v29', seq: 29 },
    ]);
  }, 60_000);

  it('keeps working memory per conversation across both processes', async () => {
    const id = `cluster-wm-${randomUUID().slice(0, 8)}`;
    const put = await send(apps[0]!, 'PUT', `/conversations/${id}/working-memory/plan`, {
      value: { step: 1 },
    });
    expect(put.status).toBe(204);
    const read = await fetch(`${apps[1]!.url}/conversations/${id}/working-memory/plan`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ value: { step: 1 } });
  });

  it('deletes a conversation with its runs and working memory, whose keys sit on other nodes', async () => {
    const id = `cluster-delete-${randomUUID().slice(0, 8)}`;
    const runIds: string[] = [];
    for (let t = 0; t < 4; t += 1) {
      const accepted = await send(apps[t % 2]!, 'POST', `/conversations/${id}/turns?async=true`, {
        message: `turn ${t}`,
      });
      const { runId } = (await accepted.json()) as { runId: string };
      runIds.push(runId);
      expect(await waitUntilCompleted(apps[0]!, [{ runId }])).toEqual([]);
    }
    await (
      await send(apps[1]!, 'PUT', `/conversations/${id}/working-memory/note`, { value: 1 })
    ).arrayBuffer();
    expect((await send(apps[0]!, 'DELETE', `/conversations/${id}`)).status).toBe(204);
    for (const runId of runIds)
      expect((await fetch(`${apps[1]!.url}/runs/${runId}`)).status).toBe(404);
    expect(await storedRoles(apps[1]!, id)).toEqual([]);
    expect((await fetch(`${apps[1]!.url}/conversations/${id}/working-memory/note`)).status).toBe(
      404,
    );
  }, 60_000);

  it('spreads the keys over every master, and keeps the queue under one hash tag', async () => {
    // Its own writes (tests run in any order; after the outage test the cluster is empty): a
    // synchronous turn on each of twelve conversations, and a queued one.
    const id = `spread-${randomUUID().slice(0, 8)}`;
    for (let c = 0; c < 12; c += 1) {
      const turn = await send(apps[c % 2]!, 'POST', `/conversations/${id}-${c}/turns`, {
        message: 'spread',
      });
      expect(turn.status).toBe(201);
      await turn.arrayBuffer();
    }
    const accepted = await send(apps[0]!, 'POST', `/conversations/${id}-q/turns?async=true`, {
      message: 'queued',
    });
    expect(accepted.status).toBe(202);
    const { runId } = (await accepted.json()) as { runId: string };
    expect(await waitUntilCompleted(apps[1]!, [{ runId }])).toEqual([]);
    expect((await cluster.keysPerNode()).every((count) => count > 0)).toBe(true);
    const queueKeys = await cluster.keys(`*${prefix}*`);
    const bullKeys = queueKeys.filter((key) => !key.includes(':agent-seq:'));
    expect(bullKeys.length).toBeGreaterThan(0);
    expect(bullKeys.every((key) => key.startsWith(`{${prefix}}:`))).toBe(true);
    const counters = await cluster.keys('agent-memory:throttle:*:hits');
    expect(counters.length).toBeGreaterThan(0);
  });

  const queueAfter = () =>
    send(apps[0]!, 'POST', `/conversations/cluster-outage/turns?async=true`, {
      message: 'queued after',
    });

  // The restarted cluster is empty (its nodes keep no data): every other test writes its own.
  it('answers a clean 5xx while the whole cluster is down, and serves again once it is back', async () => {
    await cluster.stop();
    const started = performance.now();
    const during = await send(apps[0]!, 'POST', `/conversations/cluster-outage/turns`, {
      message: 'during',
    });
    const waitedMs = performance.now() - started;
    expect(during.status).toBeGreaterThanOrEqual(500);
    expect(await during.json()).toHaveProperty('message');
    await cluster.restart();
    let status = 0;
    const back = performance.now();
    for (let i = 0; i < 100 && status !== 201; i += 1) {
      const after = await send(apps[1]!, 'POST', `/conversations/cluster-outage/turns`, {
        message: 'after',
      });
      status = after.status;
      await after.arrayBuffer();
      if (status !== 201) await sleep(200);
    }
    expect(status).toBe(201);
    const recoveredMs = performance.now() - back;
    // The other process reconnects on its own schedule: its queue may answer a 5xx a while longer.
    let accepted = await queueAfter();
    for (let i = 0; i < 100 && accepted.status !== 202; i += 1) {
      await accepted.arrayBuffer();
      await sleep(200);
      accepted = await queueAfter();
    }
    expect(accepted.status).toBe(202);
    const { runId } = (await accepted.json()) as { runId: string };
    expect(await waitUntilCompleted(apps[1]!, [{ runId }])).toEqual([]);
    expect(await storedRoles(apps[0]!, 'cluster-outage')).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    console.info(
      `Redis Cluster outage over HTTP: ${during.status} after ${Math.round(waitedMs)} ms; serving again ${Math.round(recoveredMs)} ms after the restart`,
    );
  }, 90_000);
});
