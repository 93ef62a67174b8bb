import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp, serverEnv } from '../support/app-harness.js';

const CONVERSATIONS = 20;
const TURNS = 10;
const PROCESSES = 4;

/**
 * Four processes of the app on one PostgreSQL and one Redis — two that clients talk to, and all
 * four working the queue — with 20 conversations × 10 turns sent concurrently through both
 * entrances, synchronous and queued mixed, and concurrent long-term writes with shuffled seqs.
 */
describe('scale-out: four processes on one PostgreSQL and one Redis', () => {
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    const env = {
      ...serverEnv(),
      QUEUE_LOCK_DURATION_MS: '5000',
      QUEUE_STALLED_INTERVAL_MS: '2000',
    };
    for (let i = 0; i < PROCESSES; i += 1) apps.push(await bootApp(env));
  }, 120_000);
  afterAll(() => Promise.all(apps.map((app) => app.close())));

  const post = (app: RunningApp, path: string, body: object) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('ends every conversation with exactly its successful turns, in order, none twice', async () => {
    const run = randomUUID().slice(0, 8);
    const succeeded = new Map<string, string[]>();
    const failures: number[] = [];
    const conversation = async (c: number) => {
      const id = `scale-${run}-${c}`;
      const done: string[] = [];
      succeeded.set(id, done);
      for (let t = 0; t < TURNS; t += 1) {
        const message = `c${c} turn ${t}`;
        const entrance = apps[(c + t) % 2]!;
        if (t % 2 === 0) {
          const response = await post(entrance, `/conversations/${id}/turns`, { message });
          if (response.status === 201) done.push(message);
          else failures.push(response.status);
          await response.arrayBuffer();
          continue;
        }
        const accepted = await post(entrance, `/conversations/${id}/turns?async=true`, { message });
        const { runId } = (await accepted.json()) as { runId: string };
        // The next turn goes in once this one is settled: the order is then the clients' own.
        for (let i = 0; i < 400; i += 1) {
          const other = apps[(c + t + 1) % 2]!;
          const record = (await (await fetch(`${other.url}/runs/${runId}`)).json()) as {
            status: string;
          };
          if (record.status === 'completed') {
            done.push(message);
            break;
          }
          if (record.status === 'failed') {
            failures.push(0);
            break;
          }
          await sleep(25);
        }
      }
    };
    await Promise.all(Array.from({ length: CONVERSATIONS }, (_, c) => conversation(c)));

    let turns = 0;
    for (const [id, done] of succeeded) {
      const page = (await (
        await fetch(`${apps[1]!.url}/conversations/${id}/messages?last=1000`)
      ).json()) as {
        version: number;
        messages: Array<{ role: string; content: string }>;
      };
      const asked = page.messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(asked).toEqual(done);
      page.messages.forEach((message, i) =>
        expect(message.role).toBe(i % 2 === 0 ? 'user' : 'assistant'),
      );
      turns += done.length;
    }
    expect(turns).toBeGreaterThan(CONVERSATIONS * TURNS * 0.9);
    console.info(
      `Scale-out: ${CONVERSATIONS} conversations × ${TURNS} turns over ${PROCESSES} processes: ${turns} succeeded, ${failures.length} failed (${JSON.stringify(failures)}), 0 lost, 0 doubled`,
    );
  }, 180_000);

  it('converges concurrent long-term writes to the highest seq, across processes', async () => {
    const entity = `scale-entity-${randomUUID().slice(0, 8)}`;
    const seqs = Array.from({ length: 40 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    const answers = await Promise.all(
      seqs.map(async (seq, i) => {
        const response = await fetch(`${apps[i % PROCESSES]!.url}/entities/${entity}/memories/k`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ value: `v${seq}`, seq }),
        });
        return response.status;
      }),
    );
    expect(answers.every((status) => status === 200)).toBe(true);
    for (const app of apps) {
      const record = (await (await fetch(`${app.url}/entities/${entity}/memories/k`)).json()) as {
        value: string;
        seq: number;
      };
      expect(record).toMatchObject({ value: 'v40', seq: 40 });
    }
  }, 60_000);
});
