import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bootApp, embeddedEnv } from '../support/app-harness.js';
import { HEALTH_REQUEST, RawConnection } from '../support/raw-connection.js';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

const llm = new FakeLlmServer();
let llmEnv: Record<string, string>;

beforeAll(async () => {
  llmEnv = { OPENAI_BASE_URL: await llm.start(), LLM_MODEL: 'stub', LLM_MAX_RETRIES: '0' };
});
afterAll(async () => {
  await llm.stop();
});

describe('the example app across restarts and shutdowns (SQLite files)', () => {
  it('keeps history, long-term and run records across a restart', async () => {
    const env = { ...embeddedEnv(tempDir()), ...llmEnv };
    llm.reset();
    llm.enqueue(openAiCompletion('Stored.'));
    const first = await bootApp(env);
    const turn = await request(first.url)
      .post('/conversations/c1/turns')
      .send({ message: 'remember me' })
      .expect(201);
    await request(first.url).put('/entities/u1/memories/k').send({ value: 42 }).expect(200);
    await first.close();

    const second = await bootApp(env);
    try {
      const messages = await request(second.url).get('/conversations/c1/messages').expect(200);
      expect(messages.body.version).toBe(2);
      expect(messages.body.messages[1].content).toBe('Stored.');
      const record = await request(second.url).get('/entities/u1/memories/k').expect(200);
      expect(record.body.value).toBe(42);
      const run = await request(second.url).get(`/runs/${turn.body.runId}`).expect(200);
      expect(run.body.status).toBe('completed');
    } finally {
      await second.close();
    }
  }, 60_000);

  it('finishes an in-flight turn on SIGTERM, then exits 0', async () => {
    const env = { ...embeddedEnv(tempDir()), ...llmEnv };
    llm.reset();
    llm.enqueue({ ...openAiCompletion('Finished after SIGTERM.'), delayMs: 1_000 } as never);
    const app = await bootApp(env);
    const inFlight = request(app.url).post('/conversations/c1/turns').send({ message: 'slow' });
    const answered = inFlight.then((response) => response);
    while (llm.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    app.kill('SIGTERM');
    const response = await answered;
    expect(response.status).toBe(201);
    expect(response.body.reply.content).toBe('Finished after SIGTERM.');
    expect(await app.exited).toEqual({ code: 0, signal: null });

    const again = await bootApp(env);
    try {
      const messages = await request(again.url).get('/conversations/c1/messages').expect(200);
      expect(messages.body.version).toBe(2);
    } finally {
      await again.close();
    }
  }, 60_000);
});

describe('a connection kept alive across SIGTERM', () => {
  it('is answered with Connection: close after the signal, so the app still exits 0', async () => {
    const env = { ...embeddedEnv(tempDir()), ...llmEnv };
    llm.reset();
    // The first turn keeps the shutdown waiting; the second ends well before it.
    llm.enqueue({ ...openAiCompletion('Slow.'), delayMs: 4_000 } as never);
    llm.enqueue({ ...openAiCompletion('Quick.'), delayMs: 500 } as never);
    const app = await bootApp(env);
    const slow = await RawConnection.open(app.url);
    const quick = await RawConnection.open(app.url);
    try {
      const turn = (conversation: string) =>
        `POST /conversations/${conversation}/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        'Content-Type: application/json\r\nContent-Length: 17\r\n\r\n{"message":"hi"}\n';
      const slowAnswer = slow.exchange(turn('a'), 30_000);
      while (llm.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const quickAnswer = quick.exchange(turn('b'), 30_000);
      while (llm.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      app.kill('SIGTERM');
      // Answered after the signal, on a connection opened before it: kept alive (no close header).
      expect(await quickAnswer).toMatch(/^HTTP\/1\.1 201/);
      // The first turn still runs: a request sent now on the kept-alive connection is served,
      // and its answer closes the connection.
      const late = await quick.exchange(HEALTH_REQUEST);
      expect(late).toMatch(/^HTTP\/1\.1 200/);
      expect(late).toMatch(/\r\nconnection: close/i);
      await quick.whenClosed;
      expect(await slowAnswer).toMatch(/^HTTP\/1\.1 201/);
      expect(await app.exited).toEqual({ code: 0, signal: null });
    } finally {
      slow.destroy();
      quick.destroy();
    }
  }, 60_000);
});

describe('a streamed turn whose client left, at shutdown', () => {
  it('is still stored when SIGTERM comes before its commit', async () => {
    const env = { ...embeddedEnv(tempDir()), ...llmEnv };
    llm.reset();
    llm.enqueue(
      openAiStream(
        Array.from({ length: 30 }, (_, i) => `w${i} `),
        [],
        { delayMs: 50 },
      ),
    );
    const app = await bootApp(env);
    const controller = new AbortController();
    const response = await fetch(`${app.url}/conversations/c1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'talk' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: token'))
      text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    app.kill('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });

    const again = await bootApp(env);
    try {
      const messages = await request(again.url).get('/conversations/c1/messages').expect(200);
      expect(messages.body.version).toBe(2);
      expect(messages.body.messages[1].content).toContain('w29');
    } finally {
      await again.close();
    }
  }, 60_000);
});
