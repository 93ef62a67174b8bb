import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../support/free-port.js';
import { tempDir } from '../support/test-databases.js';
import { waitFor } from '../support/wait-for.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Starts `node dist/main.js` (what `npm start` runs), as a user would, with the given variables. */
function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, NODE_OPTIONS: '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

/**
 * Waits until `/health` answers, or fails with the app's output when it exits first. No deadline of
 * its own: on a busy machine a start can take many times its usual 2–3 s, and the test's timeout
 * bounds the wait.
 */
async function waitForHealth(url: string, app: ReturnType<typeof startMain>): Promise<Response> {
  let exited = false;
  void app.exited.then(() => (exited = true));
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (exited)
        throw new Error(`the app exited before answering:\n${app.output()}`, { cause: error });
      await sleep(100);
    }
  }
}

/** Waits until the app's output matches `pattern` (a log line is written after its response). */
function waitForOutput(app: ReturnType<typeof startMain>, pattern: RegExp): Promise<string> {
  return waitFor(
    async () => app.output(),
    (output) => pattern.test(output),
    50_000,
    `${pattern}`,
  );
}

describe('dist/main.js (the built example app; `npm test` builds first)', () => {
  it('is built', () => {
    expect(existsSync(MAIN)).toBe(true);
  });

  it('starts on its embedded default (SQLite), serves /health and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dir = tempDir();
    const app = startMain({ PORT: String(port), SQLITE_PATH: join(dir, 'demo.sqlite') });
    try {
      const response = await waitForHealth(`http://127.0.0.1:${port}/health`, app);
      expect(response.status).toBe(200);
      const health = (await response.json()) as { status: string; details: object };
      expect(health.status).toBe('ok');
      // One SQLite connection, TypeORM's, shared by chat memory, the runs and long-term memory.
      expect(Object.keys(health.details)).toEqual(['sqlite']);
      expect(existsSync(join(dir, 'demo.sqlite'))).toBe(true);
    } finally {
      app.child.kill('SIGTERM');
    }
    // Graceful shutdown: in-flight requests drain, the app closes, the process exits 0 without errors.
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output()).not.toMatch(/error/i);
  });

  it('listens on loopback and Fastify by default, and logs requests without their headers', async () => {
    const port = await freePort();
    const app = startMain({
      HOST: '', // unset: the default
      PORT: String(port),
      SQLITE_PATH: join(tempDir(), 'logs.sqlite'),
      LOG_HTTP: 'true',
      LOG_LEVEL: 'info',
    });
    try {
      await waitForHealth(`http://127.0.0.1:${port}/health`, app);
      await fetch(`http://127.0.0.1:${port}/health`, {
        headers: {
          authorization: 'Bearer tenant-secret-1',
          'x-api-key': 'tenant-secret-2',
          cookie: 'session=tenant-secret-3',
        },
      });
      // The request line names the request, never its headers: no credential can reach the log.
      await waitForOutput(app, /"req":\{"id":"[^"]+","method":"GET","url":"\/health"\}/);
      // Every route is logged, the page's root too.
      await fetch(`http://127.0.0.1:${port}/conversations/logged/messages`);
      await fetch(`http://127.0.0.1:${port}/`);
      await waitForOutput(app, /"url":"\/conversations\/logged\/messages"/);
      await waitForOutput(app, /"method":"GET","url":"\/"\}/);
      expect(app.output()).not.toContain('tenant-secret');
      // On Fastify unless HTTP_ADAPTER says otherwise.
      expect(app.output()).toContain(`127.0.0.1:${port} (fastify)`);
    } finally {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  });

  it('refuses to start on an invalid variable, naming it', async () => {
    const app = startMain({ PORT: '3000', CHAT_MEMORY_BACKEND: 'postgres' });
    expect((await app.exited).code).toBe(1);
    expect(app.output()).toContain('DATABASE_URL');
  }, 30_000);
});
