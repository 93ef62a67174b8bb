import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp, serverEnv } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';

/** Bull's lock on an active job, and how often workers look for stalled ones. */
const LOCK_MS = 2_000;
const STALLED_CHECK_MS = 1_000;

/**
 * An app process killed (SIGKILL) while its turn waits on a slow model, with a second app on the
 * same PostgreSQL and Redis: a queued run is picked up by the survivor and completes exactly once;
 * a synchronous turn that was cut off left nothing; the next turn is clean.
 */
describe('the app killed mid-turn (PostgreSQL + Redis + Bull, two processes)', () => {
  const llm = new FakeLlmServer();
  let env: Record<string, string>;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    const llmUrl = await llm.start();
    env = {
      ...serverEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
      LLM_TIMEOUT_MS: '60000',
      QUEUE_LOCK_DURATION_MS: String(LOCK_MS),
      QUEUE_STALLED_INTERVAL_MS: String(STALLED_CHECK_MS),
    };
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await llm.stop();
  });

  const boot = async () => {
    const app = await bootApp(env);
    apps.push(app);
    return app;
  };
  // Each test with processes of its own: a survivor of another test, a worker on the same queue,
  // could otherwise take this test's job (the tests run in any order).
  beforeEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  const post = (app: RunningApp, path: string, body: object) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const messages = async (app: RunningApp, id: string) =>
    (await (await fetch(`${app.url}/conversations/${id}/messages?last=1000`)).json()) as {
      version: number;
      messages: Array<{ role: string; content: string | null }>;
    };
  /** Waits until the stub has received `count` model calls (bounded). */
  const modelCalls = async (count: number) => {
    for (let i = 0; i < 200 && llm.requests.length < count; i += 1) await sleep(50);
    expect(llm.requests.length).toBeGreaterThanOrEqual(count);
  };

  it('resumes a queued run on the other process, exactly once, within seconds', async () => {
    llm.reset();
    // The first model call never comes back in time; the retry on the survivor gets an answer.
    llm.enqueue({ kind: 'hang' }, openAiCompletion('Picked up.'));
    const victim = await boot();
    const id = `kill-async-${randomUUID().slice(0, 8)}`;
    const accepted = await post(victim, `/conversations/${id}/turns?async=true`, {
      message: 'please remember',
    });
    expect(accepted.status).toBe(202);
    const { runId } = (await accepted.json()) as { runId: string };
    await modelCalls(1); // the victim's worker holds the job, waiting on the model
    const survivor = await boot();
    const killedAt = performance.now();
    victim.kill('SIGKILL');
    await victim.exited;

    let status = '';
    for (let i = 0; i < 300 && status !== 'completed'; i += 1) {
      await sleep(100);
      status = ((await (await fetch(`${survivor.url}/runs/${runId}`)).json()) as { status: string })
        .status;
    }
    const recoveryMs = performance.now() - killedAt;
    expect(status).toBe('completed');
    expect(recoveryMs).toBeLessThan(15_000);
    const page = await messages(survivor, id);
    expect(page.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'please remember'],
      ['assistant', 'Picked up.'],
    ]);
    expect(llm.requests).toHaveLength(2);
    const run = (await (await fetch(`${survivor.url}/runs/${runId}`)).json()) as {
      attempts: number;
    };
    expect(run.attempts).toBe(2);
    console.info(
      `App killed mid-turn: the queued run completed on the other process ${Math.round(recoveryMs)} ms after the kill (lock ${LOCK_MS} ms, stalled check ${STALLED_CHECK_MS} ms)`,
    );
  }, 60_000);

  it('leaves nothing of a synchronous turn cut off by the kill, and the next turn is clean', async () => {
    llm.reset();
    llm.enqueue({ kind: 'hang' });
    const [victim, survivor] = [await boot(), await boot()];
    const id = `kill-sync-${randomUUID().slice(0, 8)}`;
    const cutOff = post(victim, `/conversations/${id}/turns`, { message: 'lost' }).catch(
      () => undefined,
    );
    await modelCalls(1);
    victim.kill('SIGKILL');
    await victim.exited;
    await cutOff;
    expect((await messages(survivor, id)).version).toBe(0);
    llm.enqueue(openAiCompletion('Clean.'));
    expect((await post(survivor, `/conversations/${id}/turns`, { message: 'again' })).status).toBe(
      201,
    );
    expect((await messages(survivor, id)).messages.map((m) => m.content)).toEqual([
      'again',
      'Clean.',
    ]);
  }, 60_000);
});
