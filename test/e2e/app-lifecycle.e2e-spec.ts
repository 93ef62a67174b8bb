import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { bootApp, embeddedEnv } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
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

describe('configuration errors stop the app, naming the variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ CHAT_MEMORY_BACKEND: 'mongo' }, 'CHAT_MEMORY_BACKEND'],
    [{ LONGTERM_MEMORY_URI: 'ftp://host/x' }, 'LONGTERM_MEMORY_URI'],
    [{ LLM_PROVIDER: 'anthropic' }, 'LLM_MODEL'],
    [{ OPENAI_BASE_URL: 'not a url' }, 'OPENAI_BASE_URL'],
    [{ LLM_PROVIDER: 'openai-compatible', LLM_MODEL: 'llama3.2' }, 'LLM_BASE_URL'],
    [{ AGENT_MEMORY_WINDOW: '0' }, 'AGENT_MEMORY_WINDOW'],
    [{ AGENT_CONFLICT_POLICY: 'maybe' }, 'AGENT_CONFLICT_POLICY'],
    [{ AGENT_QUEUE: 'bull' }, 'AGENT_QUEUE'],
    [{ API_KEYS: 'no-colon-here' }, 'API_KEYS'],
    [{ API_KEYS: 'acme:fifteen-chars!!' }, 'API_KEYS'], // 15: tenant keys need 16 or more
    [{ ALLOWED_HOSTS: 'https://memory.example.com' }, 'ALLOWED_HOSTS'],
    [{ RATE_LIMIT_TURNS_MAX: '-1' }, 'RATE_LIMIT_TURNS_MAX'],
    [{ HTTP_BODY_LIMIT: 'lots' }, 'HTTP_BODY_LIMIT'],
    [{ RATE_LIMIT_MAX: '-1' }, 'RATE_LIMIT_MAX'],
  ];
  it.each(cases)(
    '%j → exit 1 naming %s',
    async (env, variable) => {
      const child = spawn(process.execPath, [MAIN], {
        env: { PATH: process.env.PATH, SQLITE_PATH: `${tempDir()}/x.sqlite`, ...env },
      });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(output).toContain(`Invalid environment variable ${variable}`);
      expect(output).not.toContain('no-colon-here');
    },
    30_000,
  );
});
