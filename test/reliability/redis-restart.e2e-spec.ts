import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { freePort } from '../support/free-port.js';
import { queuedAppEnv, storedRoles, waitUntilCompleted } from './queued-runs.js';
import { tempDir } from '../support/test-databases.js';

const RUNS = 12;

/** A Redis of the test's own on loopback, with AOF fsynced on every write, in its own directory. */
class OwnRedis {
  private process?: ChildProcess;
  readonly dir = tempDir('redis-aof-');
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.process = spawn('redis-server', [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
    ]);
    for (let i = 0; i < 100; i += 1) {
      if (await this.ping()) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  /** SIGKILL: no shutdown save; what survives is what the AOF fsynced. */
  async kill(): Promise<void> {
    const exited = new Promise((resolve) => this.process!.once('exit', resolve));
    this.process!.kill('SIGKILL');
    await exited;
  }

  private async ping(): Promise<boolean> {
    const cli = spawn('redis-cli', ['-p', String(this.port), 'ping']);
    let out = '';
    cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => cli.once('exit', resolve));
    return out.trim() === 'PONG';
  }
}

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
