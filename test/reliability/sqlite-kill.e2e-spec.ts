import { describe, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { tempDir } from '../support/test-databases.js';
import { waitFor } from '../support/wait-for.js';

const WRITERS = 4;
const BURST_MS = 1_500;

/**
 * The embedded default killed (SIGKILL) in the middle of a burst of writes — long-term records and
 * turns from four concurrent clients: the SQLite file reopens intact and holds every write the app
 * acknowledged, and every turn whole.
 */
describe('SQLite: the app killed during a write burst', () => {
  it('reopens intact with every acknowledged write, and no partial turn', async () => {
    const dir = tempDir();
    const env = { SQLITE_PATH: join(dir, 'app.sqlite') };
    const app: RunningApp = await bootApp(env);
    const acked = { records: [] as string[], turns: [] as string[] };
    let stop = false;
    let sent = 0;
    const writer = async (w: number) => {
      for (let i = 0; !stop && i < 100_000; i += 1) {
        const key = `w${w}-${i}`;
        sent += 1;
        try {
          if (i % 3 === 0) {
            const response = await fetch(`${app.url}/conversations/${key}/turns`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ message: `turn ${key}` }),
            });
            if (response.status === 201) acked.turns.push(key);
          } else {
            const response = await fetch(`${app.url}/entities/burst/memories/${key}`, {
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ value: key, seq: 1 }),
            });
            if (response.status === 200) acked.records.push(key);
          }
        } catch {
          return; // the app is gone
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    // Killed in the middle of the burst: once more than 50 writes were acknowledged (a count, not a
    // time: on a busy machine a second holds far fewer), and at least BURST_MS into it.
    await Promise.all([
      sleep(BURST_MS),
      waitFor(
        async () => acked.records.length + acked.turns.length,
        (count) => count > 50,
        60_000,
        'more than 50 acknowledged writes',
      ),
    ]);
    app.kill('SIGKILL');
    expect((await app.exited).signal).toBe('SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect(acked.records.length + acked.turns.length).toBeGreaterThan(50);

    // The file as the next process finds it: WAL replayed, structure intact.
    const db = new Database(env.SQLITE_PATH);
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }

    const again = await bootApp(env);
    try {
      for (const key of acked.records) {
        const response = await fetch(`${again.url}/entities/burst/memories/${key}`);
        expect(response.status).toBe(200);
        expect(((await response.json()) as { value: string }).value).toBe(key);
      }
      for (const key of acked.turns) {
        const page = (await (
          await fetch(`${again.url}/conversations/${key}/messages?last=1000`)
        ).json()) as {
          version: number;
          messages: Array<{ role: string; content: string }>;
        };
        expect(page.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
        expect(page.messages[0]!.content).toBe(`turn ${key}`);
      }
      // Turns that were cut off: nothing, or the whole turn — never half of one.
      const search = (await (await fetch(`${again.url}/conversations?limit=100`)).json()) as {
        conversations: Array<{ conversationId: string }>;
      };
      for (const { conversationId } of search.conversations) {
        const page = (await (
          await fetch(`${again.url}/conversations/${conversationId}/messages?last=1000`)
        ).json()) as { version: number };
        expect([0, 2]).toContain(page.version);
      }
    } finally {
      await again.close();
    }
    console.info(
      `SQLite kill: ${sent} writes sent, ${acked.records.length} records and ${acked.turns.length} turns acknowledged, all present after restart`,
    );
  }, 120_000);
});
