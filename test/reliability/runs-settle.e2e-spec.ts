import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import { OwnRedis } from '../support/own-redis.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';
import { queuedAppEnv } from './queued-runs.js';
import { SETTLE_LIMIT_MS, SettleClients, type TurnOutcome, percentile } from './settle-clients.js';

const CLIENTS = 16;
/** The run lease of the apps: a run whose process died is taken over this soon. */
const RUN_LEASE_MS = 3_000;
/** Every acknowledged turn settles within this (lease + Bull's lock + a retry's backoff, with room). */
const SETTLE_BOUND_MS = 30_000;
/** Another build of the app to run the same faults against (e.g. an older one), if given. */
const MAIN = process.env.SETTLE_TEST_MAIN;

/**
 * Every run settles: two app processes on PostgreSQL + Redis + Bull, 16 clients sending sync and
 * queued, keyed and unkeyed turns, through a control phase, kill -9 of one process (restarted),
 * kill -9 of the queue's Redis (AOF; restarted), a `pg_terminate_backend` storm, and a control phase
 * again. Then, for every acknowledged turn: settled within the bound, stored exactly once, its
 * status truthful; no conversation blocked; and settle times after the faults like before them.
 */
describe('every run settles through an instance kill, a Redis kill and a terminate storm', () => {
  const llm = new FakeLlmServer();
  const appName = `agent-memory-settle-${randomUUID().slice(0, 8)}`;
  let env: Record<string, string>;
  let redis: OwnRedis;
  let admin: DataSource;
  const apps: Array<RunningApp | undefined> = [];

  const boot = () => bootApp(env, MAIN);
  const live = () => apps.filter((app): app is RunningApp => app !== undefined).map((a) => a.url);

  beforeAll(async () => {
    llm.fallback = () => ({ ...openAiCompletion('ok'), delayMs: 60 });
    const llmUrl = await llm.start();
    redis = new OwnRedis(await freePort());
    await redis.start();
    const database = new URL(TEST_POSTGRES_URL);
    database.searchParams.set('application_name', appName);
    env = {
      ...queuedAppEnv(`redis://127.0.0.1:${redis.port}`, llmUrl, 'settle'),
      DATABASE_URL: database.toString(),
      AGENT_RUN_LEASE_MS: String(RUN_LEASE_MS),
      AGENT_RUN_ATTEMPTS: '8',
    };
    apps.push(await boot(), await boot());
    admin = await new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL }).initialize();
  }, 90_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app?.close()));
    await redis?.kill().catch(() => undefined);
    await admin?.destroy();
    await llm.stop();
  });

  it('settles every acknowledged turn once, truthfully, and the queue recovers', async () => {
    const clients = new SettleClients(live);
    const running = clients.run(CLIENTS);
    await sleep(6_000);

    clients.phase = 'instance-kill';
    apps[1]!.kill('SIGKILL');
    expect((await apps[1]!.exited).signal).toBe('SIGKILL');
    apps[1] = undefined;
    await sleep(1_000);
    apps[1] = await boot();
    await sleep(8_000);

    clients.phase = 'redis-kill';
    await redis.kill();
    await sleep(1_000);
    await redis.start();
    await sleep(8_000);

    clients.phase = 'terminate-storm';
    let terminated = 0;
    for (let round = 0; round < 20; round += 1) {
      const rows = (await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [appName],
      )) as unknown[];
      terminated += rows.length;
      await sleep(150);
    }
    await sleep(5_000);

    clients.phase = 'control-after';
    await sleep(6_000);
    clients.stop();
    await running;

    const outcomes = clients.outcomes;
    const acknowledged = outcomes.filter((o) => o.acknowledged);
    report(outcomes, terminated);

    // Settled within the bound, every one.
    const unsettled = acknowledged.filter((o) => o.status === 'unsettled');
    expect(unsettled.map((o) => `${o.phase} ${o.mode} ${o.message} ${o.runId}`)).toEqual([]);
    expect(Math.max(...acknowledged.map((o) => o.settleMs!))).toBeLessThan(SETTLE_BOUND_MS);

    // Stored exactly once when completed, never when failed; unacknowledged turns at most once; and
    // each conversation holds whole turns in its client's order.
    for (let c = 0; c < CLIENTS; c += 1) {
      const conversationId = clients.conversationOf(c);
      const page = (await (
        await fetch(`${live()[0]}/conversations/${conversationId}/messages?last=1000`)
      ).json()) as { messages: Array<{ role: string; content: string }> };
      const asked = page.messages.filter((m) => m.role === 'user').map((m) => m.content);
      page.messages.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant'));
      const mine = outcomes.filter((o) => o.conversationId === conversationId);
      for (const o of mine) {
        const stored = asked.filter((content) => content === o.message).length;
        if (o.status === 'completed') expect([o.message, stored]).toEqual([o.message, 1]);
        else if (o.status === 'failed') expect([o.message, stored]).toEqual([o.message, 0]);
        else expect(stored).toBeLessThanOrEqual(1);
      }
      // Acknowledged turns in the client's order (an unacknowledged one may land anywhere: its
      // client was told nothing, e.g. the process died after queuing it).
      const acknowledgedStored = mine.filter((o) => o.status === 'completed').map((o) => o.message);
      expect(asked.filter((m) => acknowledgedStored.includes(m))).toEqual(acknowledgedStored);
    }

    // No conversation blocked: one more queued turn each, all settled within seconds.
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const response = await fetch(
          `${live()[c % 2]}/conversations/${clients.conversationOf(c)}/turns?async=true`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message: 'final' }),
          },
        );
        expect(response.status).toBe(202);
        const { runId } = (await response.json()) as { runId: string };
        for (let i = 0; i < 200; i += 1) {
          const run = (await (await fetch(`${live()[0]}/runs/${runId}`)).json()) as {
            status: string;
          };
          if (run.status === 'completed') return;
          await sleep(50);
        }
        throw new Error(`conversation ${c} still blocked: run ${runId} not completed in 10 s`);
      }),
    );
    const finalMs = performance.now() - started;

    // The queue recovered: settle times after the faults like before them.
    const before = settleTimes(outcomes, 'control-before');
    const after = settleTimes(outcomes, 'control-after');
    expect(before.length).toBeGreaterThan(20);
    expect(after.length).toBeGreaterThan(20);
    expect(percentile(after, 50)).toBeLessThan(Math.max(3 * percentile(before, 50), 300));
    console.info(
      `Runs settle: one more queued turn on all ${CLIENTS} conversations settled in ${Math.round(finalMs)} ms`,
    );
  }, 180_000);

  /** Prints the phases' figures: turns, acknowledged, failed, settle p50/p99/max. */
  function report(outcomes: TurnOutcome[], terminated: number): void {
    const lines = [
      'control-before',
      'instance-kill',
      'redis-kill',
      'terminate-storm',
      'control-after',
    ].map((phase) => {
      const of = outcomes.filter((o) => o.phase === phase);
      const times = settleTimes(outcomes, phase);
      const failed = of.filter((o) => o.status === 'failed').length;
      const lost = of.filter((o) => !o.acknowledged).length;
      const ms = (v: number) => (Number.isNaN(v) ? '-' : `${Math.round(v)}`);
      return `${phase}: ${of.length} turns, ${of.length - lost} acknowledged, ${failed} failed, ${lost} refused (5xx/cut, unkeyed); settle p50 ${ms(percentile(times, 50))} ms, p99 ${ms(percentile(times, 99))} ms, max ${ms(Math.max(...times))} ms; ${of.reduce((n, o) => n + o.posts, 0)} POSTs, ${of.reduce((n, o) => n + o.errors, 0)} answered 5xx or cut`;
    });
    console.info(
      `Runs settle (${CLIENTS} clients, lease ${RUN_LEASE_MS} ms, bound ${SETTLE_BOUND_MS} ms, client limit ${SETTLE_LIMIT_MS} ms; ${terminated} backends terminated):\n${lines.join('\n')}`,
    );
  }
});

function settleTimes(outcomes: TurnOutcome[], phase: string): number[] {
  return outcomes
    .filter((o) => o.phase === phase && o.status === 'completed')
    .map((o) => o.settleMs!);
}
