import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootApp, embeddedEnv, type RunningApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';

const CONVERSATIONS = 4;
const TURNS_EACH = 4;
/** What the README promises: every acknowledged run settles within this of a kill, with the defaults. */
const SETTLE_BOUND_MS = 30_000;

/**
 * The embedded default (SQLite, in-process queue) killed (SIGKILL) while runs it acknowledged (202)
 * wait in its queue: the next process queues them again once their lease ran out, and every one
 * settles `completed`, each turn stored once, in the order each conversation's runs were sent —
 * with the default run lease (10 s), within 30 s of the kill.
 */
describe('in-process queue: acknowledged runs survive a kill -9', () => {
  const llm = new FakeLlmServer();
  let llmUrl = '';
  beforeAll(async () => {
    // A slow model (300 ms an answer) that repeats the user's message.
    llm.fallback = (request) => {
      const messages = request.body['messages'] as Array<{ role: string; content: unknown }>;
      const user = messages.findLast((message) => message.role === 'user')!;
      const text = typeof user.content === 'string' ? user.content : JSON.stringify(user.content);
      return { ...openAiCompletion(`echo ${text}`), delayMs: 300 } as ReturnType<
        typeof openAiCompletion
      >;
    };
    llmUrl = await llm.start();
  });
  afterAll(async () => {
    await llm.stop();
  });

  it('queues them again after the restart: all completed, each once, in sending order', async () => {
    const env = {
      ...embeddedEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
    };
    let app: RunningApp = await bootApp(env);
    const sent: Array<{ conversation: string; text: string; runId: string }> = [];
    // Sent in rounds, so each conversation's turns are queued in a known order.
    for (let turn = 0; turn < TURNS_EACH; turn += 1)
      for (let c = 0; c < CONVERSATIONS; c += 1) {
        const conversation = `lost-${c}`;
        const text = `turn ${turn} of ${conversation}`;
        const response = await fetch(`${app.url}/conversations/${conversation}/turns?async=true`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ message: text }),
        });
        expect(response.status).toBe(202);
        sent.push({
          conversation,
          text,
          runId: ((await response.json()) as { runId: string }).runId,
        });
      }
    app.kill('SIGKILL');
    const killedAt = Date.now();
    await app.exited;
    app = await bootApp(env);
    try {
      const statusOf = async (runId: string) =>
        ((await (await fetch(`${app.url}/runs/${runId}`)).json()) as { status: string }).status;
      const deadline = killedAt + SETTLE_BOUND_MS;
      let statuses: string[] = [];
      while (Date.now() < deadline) {
        statuses = await Promise.all(sent.map((run) => statusOf(run.runId)));
        if (statuses.every((status) => status === 'completed' || status === 'failed')) break;
        await sleep(250);
      }
      expect(statuses).toEqual(sent.map(() => 'completed'));
      console.info(
        `In-process queue, default lease: ${sent.length} acknowledged runs settled ${Date.now() - killedAt} ms after the kill`,
      );
      for (let c = 0; c < CONVERSATIONS; c += 1) {
        const conversation = `lost-${c}`;
        const history = (await (
          await fetch(`${app.url}/conversations/${conversation}/messages`)
        ).json()) as { messages: Array<{ role: string; content: string }> };
        const users = history.messages.filter((m) => m.role === 'user').map((m) => m.content);
        expect(users).toEqual(
          sent.filter((run) => run.conversation === conversation).map((run) => run.text),
        );
        // Each answered once, right after it.
        expect(history.messages.map((m) => m.role)).toEqual(
          users.flatMap(() => ['user', 'assistant']),
        );
      }
    } finally {
      await app.close();
    }
  }, 90_000);
});
