import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { appPerSuite, embeddedEnv, type RunningApp, serverEnv } from '../support/app-harness.js';
import {
  type FakeReply,
  FakeLlmServer,
  openAiAnswer,
  openAiCompletion,
} from '../support/fake-llm-server.js';

const answer = openAiAnswer;

const llm = new FakeLlmServer();
let llmUrl: string;

beforeAll(async () => {
  llmUrl = await llm.start();
});
afterAll(async () => {
  await llm.stop();
});

/** The variables that point the app at the local model stub. */
function llmEnv(): Record<string, string> {
  return {
    OPENAI_BASE_URL: llmUrl,
    LLM_MODEL: 'stub-model',
    LLM_MAX_RETRIES: '0',
    AGENT_SYSTEM_PROMPT: 'You are a test assistant.',
  };
}

/** POSTs a turn with `Accept: text/event-stream`; resolves with the status and the whole SSE text. */
async function postSse(baseUrl: string, path: string, body: object) {
  const response = await request(baseUrl)
    .post(path)
    .set('Accept', 'text/event-stream')
    .send(body)
    .buffer(true)
    .parse((res, done) => {
      let data = '';
      res.on('data', (chunk: Buffer) => (data += chunk.toString()));
      res.on('end', () => done(null, data));
    });
  return { status: response.status, text: response.body as string };
}

async function waitForRun(app: RunningApp, runId: string, auth: Record<string, string> = {}) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await request(app.url).get(`/runs/${runId}`).set(auth);
    if (body.status === 'completed' || body.status === 'failed' || Date.now() > deadline)
      return body as { status: string; result?: { reply: { content: string } } };
    await sleep(50);
  }
}

describe.each([
  ['embedded default (SQLite, inline queue)', () => embeddedEnv()],
  ['Postgres + Redis + Bull', () => serverEnv()],
])('HTTP API on %s', (label, env) => {
  const running = appPerSuite(() => ({ ...env(), ...llmEnv() }), { beforeAll, afterAll });
  const id = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
  const http = () => request(running().url);

  it('serves the metrics (open without API keys), with the queue depth when runs go through Bull', async () => {
    llm.reset();
    llm.enqueue(answer('Counted.'));
    await http()
      .post(`/conversations/${id('metrics')}/turns`)
      .send({ message: 'hi' })
      .expect(201);
    const { text } = await http().get('/metrics').expect(200);
    const backend = label.startsWith('Postgres') ? 'postgresql' : 'sqlite';
    expect(text).toMatch(
      new RegExp(
        `agent_memory_store_operation_duration_seconds_count\\{store="chat_memory",backend="${backend}",operation="add"\\} [1-9]`,
      ),
    );
    if (label.includes('Bull'))
      expect(text).toMatch(/agent_memory_queue_jobs\{state="waiting"\} \d+/);
    else expect(text).not.toMatch(/agent_memory_queue_jobs\{/);
  });

  it('answers every request with an X-Request-Id: the caller’s sane one, else a new UUID', async () => {
    const given = await http().get('/health').set('X-Request-Id', 'trace-42.a:b');
    expect(given.headers['x-request-id']).toBe('trace-42.a:b');
    for (const path of ['/health', '/', '/conversations/c-rid/messages']) {
      const fresh = await http().get(path).set('X-Request-Id', 'not sane!');
      expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('parses +json bodies with parameters, and pages from the end for any before past it', async () => {
    const c = `json-${randomUUID().slice(0, 8)}`;
    await http()
      .put(`/conversations/${c}/working-memory/k`)
      .set('content-type', 'application/merge-patch+json; charset=utf-8')
      .send(JSON.stringify({ value: 7 }))
      .expect(204);
    expect((await http().get(`/conversations/${c}/working-memory/k`)).body.value).toBe(7);
    const page = await http()
      .get(`/conversations/${c}/messages?before=9007199254740993`)
      .expect(200);
    expect(page.body).toMatchObject({ version: 0, messages: [] });
  });

  it('keeps memory across turns: the system prompt goes first and is never stored', async () => {
    llm.reset();
    const c = id('memory');
    llm.enqueue(answer('Hello Ada.'), answer('Your name is Ada.'));
    const first = await http().post(`/conversations/${c}/turns`).send({ message: 'I am Ada.' });
    expect(first.status).toBe(201);
    expect(first.body.conversationId).toBe(c);
    expect(first.body.reply.content).toBe('Hello Ada.');
    await http().post(`/conversations/${c}/turns`).send({ message: 'Who am I?' }).expect(201);
    const sent = llm.requests[1]!.body['messages'] as Array<{ role: string; content: string }>;
    expect(sent.map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are a test assistant.'],
      ['user', 'I am Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Who am I?'],
    ]);
    const { body } = await http().get(`/conversations/${c}/messages`).expect(200);
    expect(body.version).toBe(4);
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('runs a tool loop whose long-term writes are flushed after the commit', async () => {
    llm.reset();
    const c = id('tools');
    const entity = id('user');
    llm.enqueue(
      answer(null, [
        { id: 'call_0', name: 'memory_save', arguments: '{"key":"profile/name","value":"Ada"}' },
      ]),
      answer('Saved.'),
    );
    const turn = await http()
      .post(`/conversations/${c}/turns`)
      .send({ message: 'Remember my name is Ada', entityId: entity })
      .expect(201);
    expect(turn.body.toolCalls).toEqual([
      expect.objectContaining({ name: 'memory_save', result: { saved: 'profile/name' } }),
    ]);
    expect(turn.body.longterm).toEqual({ flushed: 1, refused: 0 });
    const record = await http()
      .get(`/entities/${entity}/memories/${encodeURIComponent('profile/name')}`)
      .expect(200);
    expect(record.body).toMatchObject({ entityId: entity, key: 'profile/name', value: 'Ada' });

    const steps = await http().get(`/runs/${turn.body.runId}/steps`).expect(200);
    expect(steps.body.steps.map((step: { type: string }) => step.type)).toEqual([
      'model',
      'tool',
      'model',
    ]);
    expect(steps.body.longterm).toEqual({
      entityId: entity,
      seq: expect.any(Number),
      flushed: ['profile/name'],
      refused: [],
    });
    // Listed, among the newest (other files' apps may write conversations to the same database).
    const listed = await http().get('/conversations?limit=100').expect(200);
    expect(
      listed.body.conversations.map((entry: { conversationId: string }) => entry.conversationId),
    ).toContain(c);
  });

  it('a turn whose model fails after a tool ran stores nothing and answers 502', async () => {
    llm.reset();
    const c = id('failed');
    const entity = id('user');
    llm.enqueue(
      answer(null, [{ id: 'call_0', name: 'memory_save', arguments: '{"key":"k","value":1}' }]),
      { kind: 'json', status: 500, body: { error: { message: 'boom' } } },
    );
    const failed = await http()
      .post(`/conversations/${c}/turns`)
      .send({ message: 'hi', entityId: entity })
      .expect(502);
    expect(failed.body).toEqual({
      statusCode: 502,
      error: 'Bad Gateway',
      message: expect.stringContaining('500'),
    });
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(0);
    await http().get(`/entities/${entity}/memories/k`).expect(404);
  });

  it('answers a repeated Idempotency-Key with the same run, calling the model once', async () => {
    llm.reset();
    const c = id('idem');
    llm.enqueue(answer('Once.'));
    const key = randomUUID();
    const first = await http()
      .post(`/conversations/${c}/turns`)
      .set('Idempotency-Key', key)
      .send({ message: 'hi' })
      .expect(201);
    const again = await http()
      .post(`/conversations/${c}/turns`)
      .set('Idempotency-Key', key)
      .send({ message: 'hi' })
      .expect(201);
    expect(again.body).toEqual(first.body);
    expect(llm.requests).toHaveLength(1);
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(2);
    // The same key on another conversation names a run that is not its own.
    const other = await http()
      .post(`/conversations/${id('other')}/turns`)
      .set('Idempotency-Key', key)
      .send({ message: 'hi' })
      .expect(409);
    expect(other.body.error).toBe('Conflict');
  });

  it('runs one turn for concurrent POSTs with one key; the others get its id', async () => {
    llm.reset();
    const c = id('idem-race');
    llm.enqueue({ ...(openAiCompletion('Only once.') as object), delayMs: 500 } as FakeReply);
    llm.fallback = () => openAiCompletion('A second model call!');
    const key = randomUUID();
    const post = () =>
      http().post(`/conversations/${c}/turns`).set('Idempotency-Key', key).send({ message: 'hi' });
    const responses = await Promise.all([post(), post(), post(), post()]);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 202, 202, 202]);
    const runIds = new Set(responses.map((r) => r.body.runId));
    expect(runIds.size).toBe(1);
    expect(llm.requests).toHaveLength(1);
    const done = await waitForRun(running(), [...runIds][0] as string);
    expect(done.result!.reply.content).toBe('Only once.');
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(2);
  });

  it('runs a failed turn again when its key is repeated', async () => {
    llm.reset();
    const c = id('idem-retry');
    llm.enqueue({ kind: 'json', status: 500, body: { error: 'down' } }, answer('Recovered.'));
    const key = randomUUID();
    const post = () =>
      http().post(`/conversations/${c}/turns`).set('Idempotency-Key', key).send({ message: 'hi' });
    await post().expect(502);
    const retried = await post().expect(201);
    expect(retried.body.reply.content).toBe('Recovered.');
    await post().expect(201);
    expect(llm.requests).toHaveLength(2);
  });

  it('streams a turn as SSE; a client that leaves mid-stream does not stop it', async () => {
    llm.reset();
    const c = id('sse');
    const words = Array.from({ length: 20 }, (_, i) => `w${i} `).join('');
    llm.enqueue(answer(words.trim(), [], 50));
    const controller = new AbortController();
    const response = await fetch(`${running().url}/conversations/${c}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'talk' }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: token'))
      text += new TextDecoder().decode((await reader.read()).value);
    const runId = /event: run\ndata: (\{.*\})/.exec(text)![1]!;
    controller.abort();
    const run = await waitForRun(running(), (JSON.parse(runId) as { runId: string }).runId);
    expect(run.status).toBe('completed');
    expect(run.result!.reply.content).toBe(words.trim());
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(2);
  });

  it('streams tool calls and results, then done with the run result', async () => {
    llm.reset();
    const c = id('sse-tools');
    llm.enqueue(
      answer(null, [{ id: 'call_0', name: 'scratchpad_set', arguments: '{"key":"n","value":7}' }]),
      answer('Noted.'),
    );
    const response = await postSse(running().url, `/conversations/${c}/turns`, {
      message: 'note 7',
    });
    expect(response.status).toBe(200);
    const events = [...response.text.matchAll(/event: (\w+)/g)].map((m) => m[1]);
    expect(events[0]).toBe('run');
    expect(events).toEqual(expect.arrayContaining(['tool_call', 'tool_result', 'token', 'done']));
    expect(events.at(-1)).toBe('done');
    const memory = await http().get(`/conversations/${c}/working-memory`).expect(200);
    expect(memory.body.entries).toEqual([{ key: 'n', value: 7, sizeBytes: 2 }]);
  });

  it('ends a failing streamed turn with an error event, storing nothing', async () => {
    llm.reset();
    const c = id('sse-error');
    llm.enqueue({ kind: 'json', status: 500, body: { error: 'down' } });
    const response = await postSse(running().url, `/conversations/${c}/turns`, { message: 'hi' });
    expect(response.status).toBe(200);
    const text = response.text;
    expect([...text.matchAll(/event: (\w+)/g)].map((m) => m[1])).toEqual(['run', 'error']);
    const error = JSON.parse(/event: error\ndata: (.*)/.exec(text)![1]!) as { statusCode: number };
    expect(error.statusCode).toBe(502);
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(0);
  });

  it('queues a turn with ?async=true; a job that fails once is retried and stored once', async () => {
    llm.reset();
    const c = id('async');
    llm.enqueue({ kind: 'json', status: 500, body: { error: 'transient' } }, answer('Later.'));
    const accepted = await http()
      .post(`/conversations/${c}/turns?async=true`)
      .send({ message: 'hi' })
      .expect(202);
    const run = await waitForRun(running(), accepted.body.runId);
    expect(run.status).toBe('completed');
    expect(run.result!.reply.content).toBe('Later.');
    const { body } = await http().get(`/conversations/${c}/messages`);
    expect(body.version).toBe(2);
  }, 30_000);

  it('queues one run for concurrent async POSTs with one key', async () => {
    llm.reset();
    const c = id('async-key');
    llm.enqueue(answer('Queued once.'));
    llm.fallback = () => openAiCompletion('A second model call!');
    const key = randomUUID();
    const post = () =>
      http()
        .post(`/conversations/${c}/turns?async=true`)
        .set('Idempotency-Key', key)
        .send({ message: 'hi' });
    const responses = await Promise.all([post(), post(), post()]);
    // 202 while the run is queued or running; 201 with its result once it has completed.
    for (const response of responses) expect([201, 202]).toContain(response.status);
    const runIds = new Set(responses.map((r) => r.body.runId));
    expect(runIds.size).toBe(1);
    const run = await waitForRun(running(), [...runIds][0] as string);
    expect(run.result!.reply.content).toBe('Queued once.');
    expect(llm.requests).toHaveLength(1);
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(2);
  }, 30_000);

  it('pages history backwards by position, exactly, while turns arrive', async () => {
    llm.reset();
    const c = id('pages');
    llm.fallback = (req) => answer('ok')(req);
    for (let i = 0; i < 3; i++)
      await http()
        .post(`/conversations/${c}/turns`)
        .send({ message: `m${i}` })
        .expect(201);
    const newest = await http().get(`/conversations/${c}/messages?last=2`).expect(200);
    expect(newest.body).toMatchObject({ version: 6, before: 5 });
    await http().post(`/conversations/${c}/turns`).send({ message: 'm3' }).expect(201);
    const older = await http()
      .get(`/conversations/${c}/messages?before=${newest.body.before}&limit=2`)
      .expect(200);
    expect(older.body.messages.map((m: { content: string }) => m.content)).toEqual(['m1', 'ok']);
    expect(older.body).toMatchObject({ version: 8, before: 3 });
    // Written as JSON text (the stored messages spliced in): the same type and shape as any answer.
    const all = await http().get(`/conversations/${c}/messages`).expect(200);
    expect(all.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(all.body)).toEqual(['conversationId', 'version', 'messages']);
    expect(all.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'm0',
      'ok',
      'm1',
      'ok',
      'm2',
      'ok',
      'm3',
      'ok',
    ]);
    await http().get(`/conversations/${c}/messages?last=0`).expect(400);
  });

  it('guards long-term writes by seq and searches prefixes literally', async () => {
    const entity = id('seq');
    const put = (key: string, body: object) =>
      http()
        .put(`/entities/${entity}/memories/${encodeURIComponent(key)}`)
        .send(body);
    expect((await put('k', { value: 'v5', seq: 5 }).expect(200)).body.applied).toBe(true);
    const stale = await put('k', { value: 'v3', seq: 3 }).expect(200);
    expect(stale.body).toMatchObject({ applied: false, record: { value: 'v5', seq: 5 } });
    // Without seq, a write takes the entity's next counter value: successive writes apply in order.
    const counted = await put('c', { value: 'first' }).expect(200);
    const recounted = await put('c', { value: 'second' }).expect(200);
    expect(counted.body.applied && recounted.body.applied).toBe(true);
    expect(recounted.body.record).toMatchObject({ value: 'second' });
    expect(recounted.body.record.seq).toBeGreaterThan(counted.body.record.seq);
    expect((await http().delete(`/entities/${entity}/memories/k?seq=4`).expect(200)).body).toEqual({
      applied: false,
    });
    await http().delete(`/entities/${entity}/memories/k?seq=1000`).expect(200, { applied: true });
    await http().get(`/entities/${entity}/memories/k`).expect(404);
    for (const key of ['a%b', 'a_b', 'aXb', 'a%c']) await put(key, { value: key }).expect(200);
    const found = await http()
      .get(`/entities/${entity}/memories?prefix=${encodeURIComponent('a%')}`)
      .expect(200);
    expect(found.body.records.map((r: { key: string }) => r.key)).toEqual(['a%b', 'a%c']);
    await put('bad', { seq: 1 }).expect(400);
    await http().delete(`/entities/${entity}/memories/k`).expect(400);
  });

  it('shows the queue board at /admin/queues when runs are queued on Bull', async () => {
    const board = await http().get('/admin/queues/api/queues');
    if (!env().REDIS_URL) {
      expect(board.status).toBe(404);
      return;
    }
    expect(board.status).toBe(200);
    expect(board.body.queues.map((q: { name: string }) => q.name)).toEqual(['agent-runs']);
    const health = await http().get('/health').expect(200);
    expect(Object.keys(health.body.details)).toContain('queue');
  });

  it('deletes a conversation (204) and its runs', async () => {
    llm.reset();
    const c = id('delete');
    llm.enqueue(answer('x'));
    const turn = await http().post(`/conversations/${c}/turns`).send({ message: 'hi' }).expect(201);
    await http().delete(`/conversations/${c}`).expect(204);
    expect((await http().get(`/conversations/${c}/messages`)).body.version).toBe(0);
    await http().get(`/runs/${turn.body.runId}`).expect(404);
  });
});

describe('HTTP API: auth, tenants and limits (embedded default)', () => {
  const A = { Authorization: 'Bearer key-of-tenant-a-0001' };
  const B = { Authorization: 'Bearer key-of-tenant-b-0001' };
  const running = appPerSuite(
    () => ({
      ...embeddedEnv(),
      ...llmEnv(),
      API_KEYS: 'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001',
      HTTP_BODY_LIMIT: '4kb',
      AGENT_MEMORY_WINDOW: '3',
      LLM_TIMEOUT_MS: '1000',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);

  it('needs a valid bearer key on every route but /health (401)', async () => {
    await http().get('/health').expect(200);
    const missing = await http().get('/conversations/c1/messages').expect(401);
    expect(missing.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: expect.any(String),
    });
    await http()
      .get('/conversations/c1/messages')
      .set({ Authorization: 'Bearer nope' })
      .expect(401);
    // The docs are public (API_DOCS's default): they describe the routes, with bearer auth for
    // every call made from them; no tenant data without a key.
    const docs = await http().get('/docs-json').expect(200);
    expect(docs.body.components.securitySchemes.bearer).toMatchObject({ scheme: 'bearer' });
    expect(docs.body.security).toEqual([{ bearer: [] }]);
  });

  it('keeps tenants apart, whatever ids the other tenant crafts', async () => {
    llm.reset();
    llm.enqueue(answer('secret reply'));
    const turn = await http()
      .post('/conversations/c1/turns')
      .set(A)
      .send({ message: 'A secret' })
      .expect(201);
    expect(turn.body.conversationId).toBe('c1');
    await http().put('/entities/u1/memories/k').set(A).send({ value: 'A only' }).expect(200);
    await http().put('/conversations/c1/working-memory/k').set(A).send({ value: 1 }).expect(204);

    expect((await http().get('/conversations/c1/messages').set(B)).body.version).toBe(0);
    await http().get(`/runs/${turn.body.runId}`).set(B).expect(404);
    await http().get('/entities/u1/memories/k').set(B).expect(404);
    expect((await http().get('/conversations/c1/working-memory').set(B)).body.entries).toEqual([]);
    for (const crafted of ['tenantA%2Fc1', '..%2Ftenant A', 'tenantA/c1'])
      expect([400, 404]).toContain(
        (await http().get(`/conversations/${crafted}/messages`).set(B)).status,
      );
    expect((await http().get('/conversations/tenantA%2Fc1/messages').set(B)).status).toBe(400);
    // A's own view is intact.
    expect((await http().get('/conversations/c1/messages').set(A)).body.version).toBe(2);
  });

  it('sends the model only the window (AGENT_MEMORY_WINDOW), while storing everything', async () => {
    llm.reset();
    llm.fallback = (req) => answer(`reply ${llm.requests.length}`)(req);
    for (const message of ['one', 'two', 'three'])
      await http().post('/conversations/w1/turns').set(A).send({ message }).expect(201);
    const sent = llm.requests[2]!.body['messages'] as Array<{ role: string; content: string }>;
    expect(sent.map((m) => m.content)).toEqual([
      'You are a test assistant.',
      'two',
      'reply 2',
      'three',
    ]);
    expect((await http().get('/conversations/w1/messages').set(A)).body.version).toBe(6);
  });

  it('maps bad input to 400, unknown runs to 404 and oversized bodies to 413', async () => {
    const empty = await http().post('/conversations/c1/turns').set(A).send({}).expect(400);
    expect(empty.body.error).toBe('Bad Request');
    await http()
      .post(`/conversations/${'x'.repeat(300)}/turns`)
      .set(A)
      .send({ message: 'hi' })
      .expect(400);
    await http().get('/runs/unknown-run').set(A).expect(404);
    const big = await http()
      .post('/conversations/c1/turns')
      .set(A)
      .send({ message: 'x'.repeat(8 * 1024) })
      .expect(413);
    expect(big.body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: expect.any(String),
    });
  });

  it('answers 415 naming application/json to a body that is not declared JSON, or none', async () => {
    const plain = await http()
      .post('/conversations/c-415/turns')
      .set(A)
      .set('Content-Type', 'text/plain')
      .send('{"message":"hi"}')
      .expect(415);
    expect(plain.body).toEqual({
      statusCode: 415,
      error: 'Unsupported Media Type',
      message: 'the body must be JSON (Content-Type: application/json); got "text/plain"',
    });
    const none = await http().post('/conversations/c-415/turns').set(A).expect(415);
    expect(none.body.message).toBe(
      'the body must be JSON (Content-Type: application/json); got no Content-Type',
    );
    // Nothing was stored, and a JSON body still goes through.
    expect((await http().get('/conversations/c-415/messages').set(A)).body.version).toBe(0);
    await http().put('/entities/u1/memories/k').set(A).type('form').send('value=x').expect(415);
  });

  it('answers 504 when the model times out, storing nothing', async () => {
    llm.reset();
    llm.enqueue({ kind: 'hang' });
    const timedOut = await http()
      .post('/conversations/slow/turns')
      .set(A)
      .send({ message: 'hi' })
      .expect(504);
    expect(timedOut.body.error).toBe('Gateway Timeout');
    expect((await http().get('/conversations/slow/messages').set(A)).body.version).toBe(0);
  });

  it('documents every route in the OpenAPI document', async () => {
    const { body } = await http().get('/docs-json').set(A).expect(200);
    const routes = Object.entries(body.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'POST /conversations/{conversationId}/turns',
        'POST /conversations/{conversationId}/chat',
        'GET /conversations/{conversationId}/chat/stream',
        'DELETE /conversations/{conversationId}/chat/stream',
        'GET /conversations/{conversationId}/working-memory/{key}',
        'GET /conversations/{conversationId}/runs',
        'GET /runs/{runId}',
        'GET /runs/{runId}/steps',
        'GET /conversations',
        'GET /conversations/{conversationId}/messages',
        'DELETE /conversations/{conversationId}',
        'PATCH /conversations/{conversationId}',
        'GET /entities/{entityId}/memories',
        'GET /entities/{entityId}/memories/{key}',
        'PUT /entities/{entityId}/memories/{key}',
        'DELETE /entities/{entityId}/memories/{key}',
        'GET /entities/{entityId}/recall',
        'GET /entities/{entityId}/formed-memories',
        'GET /entities/{entityId}/formed-memories/{memoryId}',
        'POST /entities/{entityId}/formed-memories/{memoryId}/corrections',
        'POST /entities/{entityId}/formed-memories/{memoryId}/invalidation',
        'GET /entities/{entityId}/formation-failures',
        'POST /entities/{entityId}/formation-failures/{runId}/rerun',
        'GET /entities/{entityId}/formation-jobs',
        'GET /entities/{entityId}/profile',
        'PATCH /entities/{entityId}/profile',
        'GET /entities/{entityId}/profile/history',
        'GET /conversations/{conversationId}/working-memory',
        'PUT /conversations/{conversationId}/working-memory/{key}',
        'DELETE /conversations/{conversationId}/working-memory/{key}',
        'GET /health',
      ].sort(),
    );
  });
});

describe('HTTP API: rate limits and the long-term tier turned off', () => {
  const running = appPerSuite(
    () => ({
      ...embeddedEnv(),
      ...llmEnv(),
      LONGTERM_MEMORY_URI: 'off',
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_TTL_MS: '60000',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);

  it('answers 503 naming LONGTERM_MEMORY_URI, then 429 with Retry-After past the limit', async () => {
    const off = await http().get('/entities/u1/memories').expect(503);
    expect(off.body.message).toContain('LONGTERM_MEMORY_URI');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await http().get('/conversations/c1/messages')).status);
    // Three requests per window (whether the 503 above counted is the throttler's business).
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(429);
    const limited = await http().get('/conversations/c1/messages').expect(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.body).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: expect.any(String),
    });
  });
});

describe('HTTP API: the queue board needs the admin key (Postgres + Redis + Bull)', () => {
  const running = appPerSuite(
    () => ({
      ...serverEnv(),
      ...llmEnv(),
      API_KEYS: 'tenantA:key-of-tenant-a-0001',
      ADMIN_API_KEY: 'admin-key-0123456789',
    }),
    { beforeAll, afterAll },
  );

  it("refuses a tenant's key (it would show every tenant's jobs) and takes the admin key", async () => {
    const board = (key: string) =>
      request(running().url).get('/admin/queues/api/queues').set('Authorization', `Bearer ${key}`);
    expect((await board('key-of-tenant-a-0001')).status).toBe(401);
    const admin = await board('admin-key-0123456789');
    expect(admin.status).toBe(200);
    expect(admin.body.queues[0].readOnlyMode).toBe(true);
  });
});
