import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

const CLIENTS = 4;

/**
 * PostgreSQL terminating the app's connections (`pg_terminate_backend`) while turns run: requests
 * in flight fail with a clean 5xx or succeed; afterwards every conversation holds whole turns only,
 * and the app serves again without a restart.
 */
describe('PostgreSQL connections terminated under load', () => {
  const name = `agent-memory-term-${randomUUID().slice(0, 8)}`;
  let app: RunningApp;
  let admin: DataSource;

  beforeAll(async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.searchParams.set('application_name', name);
    app = await bootApp({
      CHAT_MEMORY_BACKEND: 'postgres',
      DATABASE_URL: url.toString(),
      LONGTERM_MEMORY_URI: 'off',
      AGENT_QUEUE: 'inline',
    });
    admin = await new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL }).initialize();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await admin?.destroy();
  });

  it('answers clean errors while cut off, keeps every conversation whole, and recovers', async () => {
    const statuses = new Map<number, number>();
    const conversations: string[] = [];
    let stop = false;
    const client = async (c: number) => {
      const id = `term-${name}-${c}`;
      conversations.push(id);
      for (let i = 0; !stop && i < 10_000; i += 1) {
        const response = await fetch(`${app.url}/conversations/${id}/turns`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: `m${i}` }),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500) {
          const body = (await response.json()) as { statusCode: number; message: string };
          expect(body.statusCode).toBe(response.status);
        } else await response.arrayBuffer();
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await sleep(500);
    let terminated = 0;
    for (let round = 0; round < 3; round += 1) {
      const rows = (await admin.query(
        'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1',
        [name],
      )) as unknown[];
      terminated += rows.length;
      await sleep(300);
    }
    await sleep(500);
    stop = true;
    await Promise.all(clients);
    expect(terminated).toBeGreaterThan(0);
    expect([...statuses.keys()].every((status) => status === 201 || status >= 500)).toBe(true);

    // Whole turns only: user, assistant, user, assistant…, each user message once.
    for (const id of conversations) {
      const page = (await (
        await fetch(`${app.url}/conversations/${id}/messages?last=1000`)
      ).json()) as {
        version: number;
        messages: Array<{ role: string; content: string }>;
      };
      expect(page.version % 2).toBe(0);
      page.messages.forEach((message, i) =>
        expect(message.role).toBe(i % 2 === 0 ? 'user' : 'assistant'),
      );
      const asked = page.messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(new Set(asked).size).toBe(asked.length);
    }
    // Served again, without a restart.
    const after = await fetch(`${app.url}/conversations/${conversations[0]}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'after' }),
    });
    expect(after.status).toBe(201);
    console.info(
      `PostgreSQL terminate: ${terminated} backends terminated; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
  }, 60_000);
});
