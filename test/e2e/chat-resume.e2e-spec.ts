import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { bootApp, embeddedEnv, type RunningApp, serverEnv } from '../support/app-harness.js';
import { FakeLlmServer, openAiAnswer } from '../support/fake-llm-server.js';

const llm = new FakeLlmServer();
let llmUrl = '';
const KEYS = { a: 'key-of-tenant-a-0001', b: 'key-of-tenant-b-0001' };
const WORDS = Array.from({ length: 16 }, (_, n) => `word${n}`);
const REPLY = WORDS.join(' ');

beforeAll(async () => {
  llmUrl = await llm.start();
});
afterAll(async () => {
  await llm.stop();
});

function appEnv(layout: Record<string, string>): Record<string, string> {
  return {
    ...layout,
    OPENAI_BASE_URL: llmUrl,
    LLM_MODEL: 'stub',
    LLM_MAX_RETRIES: '0',
    API_KEYS: `tenantA:${KEYS.a},tenantB:${KEYS.b}`,
  };
}

const headers = (key = KEYS.a) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
});

/** The `data:` payloads of an SSE response, as they arrive. */
async function* frames(response: Response): AsyncIterable<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (frame.startsWith('data: ')) yield frame.slice(6);
    }
  }
}

/** Every payload to the end (bounded: 15 s). */
async function all(response: Response): Promise<string[]> {
  const seen: string[] = [];
  const deadline = AbortSignal.timeout(15_000);
  for await (const frame of frames(response)) {
    if (deadline.aborted) throw new Error(`stream did not end: ${seen.join('\n')}`);
    seen.push(frame);
  }
  return seen;
}

/** Starts a slow streamed turn (16 tokens, 150 ms apart) and reads until its second token. */
async function startTurn(app: RunningApp, conversation: string, text = 'Hello there') {
  llm.enqueue(openAiAnswer(REPLY, [], 150));
  const client = new AbortController();
  const response = await fetch(`${app.url}/conversations/${conversation}/chat`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      message: { id: `ui-${conversation}`, role: 'user', parts: [{ type: 'text', text }] },
    }),
    signal: client.signal,
  });
  expect(response.status).toBe(200);
  const live = frames(response)[Symbol.asyncIterator]();
  const seen: string[] = [];
  while (seen.filter((frame) => frame.includes('text-delta')).length < 2) {
    const next = await live.next();
    if (next.done) throw new Error(`stream ended early: ${seen.join('\n')}`);
    seen.push(next.value);
  }
  return { client, live, seen };
}

const resume = (app: RunningApp, conversation: string, query = '?version=0', key = KEYS.a) =>
  fetch(`${app.url}/conversations/${conversation}/chat/stream${query}`, { headers: headers(key) });

const stop = (app: RunningApp, conversation: string, key = KEYS.a) =>
  fetch(`${app.url}/conversations/${conversation}/chat/stream`, {
    method: 'DELETE',
    headers: headers(key),
  });

async function history(app: RunningApp, conversation: string) {
  const response = await fetch(`${app.url}/conversations/${conversation}/messages`, {
    headers: headers(),
  });
  return (await response.json()) as {
    version: number;
    messages: Array<{ id: string; role: string; content: unknown }>;
  };
}

const textOf = (payloads: string[]) =>
  payloads
    .filter((frame) => frame.startsWith('{'))
    .map((frame) => JSON.parse(frame) as { type: string; delta?: string })
    .filter((chunk) => chunk.type === 'text-delta')
    .map((chunk) => chunk.delta)
    .join('');

/** The resume and Stop cases, on one app (`reader` may be another instance than `writer`). */
function resumeAndStop(apps: () => { writer: RunningApp; reader: RunningApp }) {
  it('resumes a reply whose client left: from its first chunk, to its end; stored once', async () => {
    const { writer, reader } = apps();
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { client } = await startTurn(writer, conversation);
    client.abort();
    const [first, second] = await Promise.all([
      resume(reader, conversation),
      resume(reader, conversation),
    ]);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const [payloads, again] = await Promise.all([all(first), all(second)]);
    // The user message and the reply come under the ids they are stored with: a page that has
    // the committed turn in its history finds the same messages, never a second copy.
    const start = JSON.parse(payloads[1]!) as { type: string; messageId: string };
    const runId = start.messageId.replace(/:1$/, '');
    expect(start).toEqual({ type: 'start', messageId: `${runId}:1` });
    expect(JSON.parse(payloads[0]!)).toEqual({
      type: 'data-turn-user',
      transient: true,
      data: {
        id: `${runId}:0`,
        clientId: `ui-${conversation}`,
        role: 'user',
        parts: [{ type: 'text', text: 'Hello there' }],
      },
    });
    expect(textOf(payloads)).toBe(REPLY);
    expect(payloads.slice(-2)).toEqual(['{"type":"finish"}', '[DONE]']);
    expect(again).toEqual(payloads);
    const stored = await history(writer, conversation);
    expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(stored.messages.map((message) => message.id)).toEqual([`${runId}:0`, `${runId}:1`]);
    expect(stored.version).toBe(2);
    // The history holds the turn now: nothing to resume for a page that loaded it.
    expect((await resume(reader, conversation, `?version=${stored.version}`)).status).toBe(204);
    expect((await resume(reader, conversation, '')).status).toBe(204);
    expect((await stop(reader, conversation)).status).toBe(404);
  }, 30_000);

  it('stops a turn from a Stop request: the stream ends with abort, nothing is stored', async () => {
    const { writer, reader } = apps();
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { live, seen } = await startTurn(writer, conversation);
    expect((await stop(reader, conversation)).status).toBe(204);
    for (let next = await live.next(); !next.done; next = await live.next()) seen.push(next.value);
    expect(seen.slice(-3)).toEqual([
      expect.stringMatching(
        /^\{"type":"data-turn-stopped","transient":true,"data":\{"messageId":"[^"]+:1"\}\}$/,
      ),
      '{"type":"abort"}',
      '[DONE]',
    ]);
    expect(textOf(seen).length).toBeLessThan(REPLY.length);
    expect(await history(writer, conversation)).toMatchObject({ version: 0, messages: [] });
    expect((await resume(reader, conversation)).status).toBe(204);
    expect((await stop(reader, conversation)).status).toBe(404);
    // The conversation goes on as if the stopped turn never was.
    llm.enqueue(openAiAnswer('Fine.'));
    const next = await fetch(`${writer.url}/conversations/${conversation}/chat`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'Hi' }] } }),
    });
    expect(textOf(await all(next))).toBe('Fine.');
    expect((await history(writer, conversation)).version).toBe(2);
  }, 30_000);

  it('stops a resumed reply: its reader ends with abort, nothing is stored', async () => {
    const { writer, reader } = apps();
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { client } = await startTurn(writer, conversation);
    client.abort();
    const resumed = await resume(reader, conversation);
    const live = frames(resumed)[Symbol.asyncIterator]();
    const seen: string[] = [];
    while (!seen.some((frame) => frame.includes('text-delta')))
      seen.push((await live.next()).value);
    expect((await stop(reader, conversation)).status).toBe(204);
    for (let next = await live.next(); !next.done; next = await live.next()) seen.push(next.value);
    expect(seen.slice(-2)).toEqual(['{"type":"abort"}', '[DONE]']);
    expect((await history(writer, conversation)).messages).toEqual([]);
  }, 30_000);

  it('deletes a conversation during its first reply: the turn is stopped, nothing of it comes back', async () => {
    const { writer, reader } = apps();
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { live, seen } = await startTurn(writer, conversation);
    const deleted = await fetch(`${reader.url}/conversations/${conversation}`, {
      method: 'DELETE',
      headers: headers(),
    });
    expect(deleted.status).toBe(204);
    for (let next = await live.next(); !next.done; next = await live.next()) seen.push(next.value);
    expect(seen.slice(-2)).toEqual(['{"type":"abort"}', '[DONE]']);
    // Past the time the reply would have taken to finish: still nothing stored, not listed.
    await new Promise((resolve) => setTimeout(resolve, 16 * 150));
    expect(await history(writer, conversation)).toMatchObject({ version: 0, messages: [] });
    const listed = await fetch(`${writer.url}/conversations`, { headers: headers() });
    const { conversations } = (await listed.json()) as {
      conversations: Array<{ conversationId: string }>;
    };
    expect(conversations.map((entry) => entry.conversationId)).not.toContain(conversation);
    // A reply saved a moment before the delete is not replayed to a page that reloads after it.
    llm.enqueue(openAiAnswer('Saved, then deleted.'));
    const saved = await fetch(`${writer.url}/conversations/${conversation}/chat`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'Hi' }] } }),
    });
    expect(textOf(await all(saved))).toBe('Saved, then deleted.');
    const replayed = await resume(reader, conversation);
    expect(replayed.status).toBe(200);
    expect(textOf(await all(replayed))).toBe('Saved, then deleted.');
    const again = await fetch(`${reader.url}/conversations/${conversation}`, {
      method: 'DELETE',
      headers: headers(),
    });
    expect(again.status).toBe(204);
    expect((await resume(reader, conversation)).status).toBe(204);
  }, 30_000);

  it("keeps a tenant's streams from another tenant", async () => {
    const { writer, reader } = apps();
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { live } = await startTurn(writer, conversation);
    expect((await resume(reader, conversation, '?version=0', KEYS.b)).status).toBe(204);
    expect((await stop(reader, conversation, KEYS.b)).status).toBe(404);
    for (let next = await live.next(); !next.done; next = await live.next());
    expect((await history(writer, conversation)).version).toBe(2);
  }, 30_000);
}

describe('resumable chat streams and Stop (embedded default, one instance)', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await bootApp(appEnv(embeddedEnv()));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  resumeAndStop(() => ({ writer: app, reader: app }));

  it('refuses a fifth reader of one conversation (429) and a bad version (400)', async () => {
    const conversation = `c-${randomUUID().slice(0, 8)}`;
    const { client } = await startTurn(app, conversation);
    client.abort();
    const readers = await Promise.all([1, 2, 3, 4].map(() => resume(app, conversation)));
    expect(readers.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    const fifth = await resume(app, conversation);
    expect(fifth.status).toBe(429);
    expect(((await fifth.json()) as { message: string }).message).toMatch(/Too many readers/);
    expect((await resume(app, conversation, '?version=-1')).status).toBe(400);
    await Promise.all(readers.map(all));
  }, 30_000);
});

describe('resumable chat streams and Stop across two instances (PostgreSQL + Redis)', () => {
  let writer: RunningApp;
  let reader: RunningApp;
  beforeAll(async () => {
    const env = appEnv(serverEnv());
    [writer, reader] = await Promise.all([bootApp(env), bootApp(env)]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([writer?.close(), reader?.close()]);
  });

  resumeAndStop(() => ({ writer, reader }));
});
