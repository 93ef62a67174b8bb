import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { bootApp, type RunningApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiAnswer } from '../support/fake-llm-server.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

const dir = tempDir();
const sqlite = { SQLITE_PATH: join(dir, 'e2e.sqlite') };
const configurations: Array<[string, Record<string, string>]> = [
  ['sqlite (the default)', sqlite],
  ['postgres', { ...sqlite, CHAT_MEMORY_BACKEND: 'postgres', DATABASE_URL: TEST_POSTGRES_URL }],
  ['mysql', { ...sqlite, CHAT_MEMORY_BACKEND: 'mysql', DATABASE_URL: TEST_MYSQL_URL }],
  [
    'redis',
    {
      ...sqlite,
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `e2e-${randomUUID().slice(0, 8)}`,
    },
  ],
];

/** The model: a local OpenAI-compatible server answering "ok" unless a test scripts its replies. */
const llm = new FakeLlmServer();
llm.fallback = openAiAnswer('ok');
let llmUrl = '';
beforeAll(async () => {
  llmUrl = await llm.start();
});
afterAll(async () => {
  await llm.stop();
});

/** The built app on each chat backend, over real HTTP. */
describe.each(configurations)('example app over HTTP on %s', (_label, env) => {
  let running: RunningApp;
  const conversationId = `e2e-${randomUUID()}`;
  const path = `/conversations/${conversationId}`;
  const get = (route: string) => fetch(`${running.url}${route}`);
  const turn = (message: string) =>
    fetch(`${running.url}${path}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
    });

  beforeAll(async () => {
    running = await bootApp({
      ...env,
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
    });
  });
  afterAll(async () => {
    await running.close();
  });

  it('GET /health reports every backend up, by kind only', async () => {
    const response = await get('/health');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; details: Record<string, object> };
    expect(body.status).toBe('ok');
    expect(Object.keys(body.details).length).toBeGreaterThan(0);
    // It needs no auth, so it tells an outsider nothing: opaque labels, no host, path or user.
    for (const name of Object.keys(body.details))
      expect(name).toMatch(/^(postgres|mysql|sqlite|redis|queue)(-\d+)?$/);
    const text = JSON.stringify(body);
    for (const secret of ['127.0.0.1', 'root', 'postgres@', '.sqlite', dir])
      expect(text).not.toContain(secret);
  });

  it('GET messages returns an unknown conversation as empty, version 0', async () => {
    const response = await get(`/conversations/never-${randomUUID()}/messages`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ version: 0, messages: [] });
  });

  it('stores turns; ?last=N returns the newest N with the full version', async () => {
    expect((await turn('hello')).status).toBe(201);
    expect((await turn('again')).status).toBe(201);
    const all = (await (await get(`${path}/messages`)).json()) as {
      conversationId: string;
      version: number;
      messages: Array<{ role: string; content: string }>;
    };
    expect(all.conversationId).toBe(conversationId);
    expect(all.version).toBe(4);
    expect(all.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const last = (await (await get(`${path}/messages?last=2`)).json()) as {
      version: number;
      messages: Array<{ content: string }>;
    };
    expect(last.version).toBe(4);
    expect(last.messages[0]!.content).toBe('again');
  });

  it('rejects a bad ?last with a JSON 400', async () => {
    for (const last of ['abc', '-1', '1.5']) {
      const response = await get(`${path}/messages?last=${last}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: expect.stringContaining('last'),
      });
    }
  });

  it('refuses cursors it did not give — control characters, bytes that are not UTF-8, over-long — with a 400', async () => {
    const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');
    const cursors = [
      b64('1700000000000:a\u0000b'), // a NUL reached PostgreSQL ("invalid byte sequence"): a 500
      b64('1700000000000:line\nbreak'),
      b64(Buffer.concat([Buffer.from('1700000000000:'), Buffer.from([0xc3, 0x28])])), // not UTF-8
      b64(`1700000000000:${'x'.repeat(400)}`), // longer than any id
      'not+base64/url==',
      'A'.repeat(10_000),
    ];
    for (const route of ['/conversations', `${path}/runs`])
      for (const cursor of cursors) {
        const response = await get(`${route}?cursor=${encodeURIComponent(cursor)}`);
        expect([route, cursor.slice(0, 20), response.status]).toEqual([
          route,
          cursor.slice(0, 20),
          400,
        ]);
        expect(await response.json()).toMatchObject({
          statusCode: 400,
          message: expect.stringContaining('cursor'),
        });
      }
  });

  it('rejects a conversation id over 200 characters with a JSON 400', async () => {
    const response = await get(`/conversations/${'x'.repeat(300)}/messages`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('conversationId');
  });

  it('lists stored turns only: a failed or stopped turn changes nothing of the list', async () => {
    const id = `listed-${randomUUID().slice(0, 8)}`;
    const listing = async () => {
      const page = (await (await get('/conversations?limit=100')).json()) as {
        conversations: Array<{ conversationId: string }>;
      };
      return page.conversations.find((entry) => entry.conversationId === id);
    };
    const post = (route: string, body: unknown) =>
      fetch(`${running.url}/conversations/${id}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // A first turn that fails: nothing is stored, nothing is listed.
    llm.enqueue({ kind: 'json', status: 400, body: { error: { message: 'refused' } } });
    expect((await post('/turns', { message: 'never stored' })).status).toBe(502);
    expect(await listing()).toBeUndefined();
    // A stored turn lists it.
    expect((await post('/turns', { message: 'first words' })).status).toBe(201);
    const stored = await listing();
    expect(stored).toEqual({
      conversationId: id,
      title: 'first words',
      preview: 'first words',
      lastActiveAt: expect.any(Number),
    });
    // A turn stopped mid-reply: the list is as the stored turns made it.
    llm.enqueue(openAiAnswer('one two three four five six seven eight', [], 150));
    const chat = await post('/chat', {
      message: { role: 'user', parts: [{ type: 'text', text: 'stopped words' }] },
    });
    const reader = chat.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes('text-delta')) {
      const next = await reader.read();
      if (next.done) throw new Error(`the reply ended early: ${seen}`);
      seen += next.value;
    }
    const stop = await fetch(`${running.url}/conversations/${id}/chat/stream`, {
      method: 'DELETE',
    });
    expect(stop.status).toBe(204);
    while (!(await reader.read()).done);
    expect(
      ((await (await get(`/conversations/${id}/messages`)).json()) as { version: number }).version,
    ).toBe(2);
    expect(await listing()).toEqual(stored);
  }, 30_000);

  it('DELETE removes the conversation with a 204', async () => {
    const response = await fetch(`${running.url}${path}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(((await (await get(`${path}/messages`)).json()) as { version: number }).version).toBe(0);
  });
});
