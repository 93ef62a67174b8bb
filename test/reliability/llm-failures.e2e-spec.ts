import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { appPerSuite, embeddedEnv } from '../support/app-harness.js';
import {
  type FakeReply,
  FakeLlmServer,
  openAiCompletion,
  openAiStream,
} from '../support/fake-llm-server.js';

/**
 * The per-attempt deadline: short enough for the hang test to stay quick, long enough that a
 * loaded CI machine (2 cores, several suites and their apps at once) never misses it on a reply
 * that does come — at 500 ms a retried drop once timed out there (504 instead of 201).
 */
const TIMEOUT_MS = 2_000;

/**
 * The model misbehaving under a real turn over HTTP: every failure is a clean 502/504 (or an SSE
 * `error` event) with nothing of the turn stored, or the adapter's retry makes the turn succeed;
 * either way the conversation's next turn is clean.
 */
describe('LLM failures over HTTP (embedded default, OpenAI-compatible stub)', () => {
  const llm = new FakeLlmServer();
  let llmUrl = '';
  const running = appPerSuite(
    () => ({
      ...embeddedEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '1',
      LLM_TIMEOUT_MS: String(TIMEOUT_MS),
      RATE_LIMIT_MAX: '0',
    }),
    {
      beforeAll: (fn) =>
        beforeAll(async () => {
          llmUrl = await llm.start();
          await fn();
        }),
      afterAll,
    },
  );
  afterAll(() => llm.stop());

  const conversation = () => `llm-${randomUUID().slice(0, 8)}`;
  const turn = async (id: string, stream = false) => {
    const started = performance.now();
    const response = await fetch(`${running().url}/conversations/${id}/turns`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(stream ? { accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify({ message: 'hello' }),
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  };
  const version = async (id: string) =>
    (
      (await (await fetch(`${running().url}/conversations/${id}/messages?last=1000`)).json()) as {
        version: number;
      }
    ).version;
  /** The failed turn left nothing, and the next one is clean. */
  const recovers = async (id: string) => {
    expect(await version(id)).toBe(0);
    llm.enqueue(openAiCompletion('Back.'));
    expect((await turn(id)).status).toBe(201);
    expect(await version(id)).toBe(2);
  };
  const errorOf = (text: string) => JSON.parse(text) as { statusCode: number; message: string };

  it('a model that never answers: 504 after the timeout and one retry, nothing stored', async () => {
    llm.reset();
    llm.enqueue({ kind: 'hang' }, { kind: 'hang' });
    const id = conversation();
    const result = await turn(id);
    expect(result.status).toBe(504);
    expect(errorOf(result.text).statusCode).toBe(504);
    expect(result.ms).toBeLessThan(TIMEOUT_MS * 2 + 3_000);
    await recovers(id);
  }, 30_000);

  it('a 429 storm: the retry honours Retry-After; past the retries, a clean error', async () => {
    llm.reset();
    const tooMany = (retryAfter: string): FakeReply => ({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': retryAfter },
      body: { error: { message: 'rate limited' } },
    });
    llm.enqueue(tooMany('1'), openAiCompletion('After the wait.'));
    const waited = await turn(conversation());
    expect(waited.status).toBe(201);
    expect(waited.ms).toBeGreaterThanOrEqual(900);

    llm.enqueue(tooMany('0'), tooMany('0'));
    const id = conversation();
    const storm = await turn(id);
    expect([429, 502, 503]).toContain(storm.status);
    expect(errorOf(storm.text).statusCode).toBe(storm.status);
    await recovers(id);
  }, 30_000);

  it('dropped connections: one is retried; two fail cleanly with 502', async () => {
    llm.reset();
    llm.enqueue({ kind: 'drop' }, openAiCompletion('Retried.'));
    expect((await turn(conversation())).status).toBe(201);
    llm.enqueue({ kind: 'drop' }, { kind: 'drop' });
    const id = conversation();
    const dropped = await turn(id);
    expect(dropped.status).toBe(502);
    await recovers(id);
  }, 30_000);

  it('a 500 and malformed JSON from the model: 502, nothing stored', async () => {
    llm.reset();
    llm.enqueue(
      { kind: 'json', status: 500, body: { error: { message: 'boom' } } },
      { kind: 'json', status: 500, body: { error: { message: 'boom' } } },
    );
    const id = conversation();
    expect((await turn(id)).status).toBe(502);
    await recovers(id);

    llm.enqueue({ kind: 'json', body: { choices: 'not a list' } });
    const malformed = conversation();
    expect((await turn(malformed)).status).toBe(502);
    await recovers(malformed);
  }, 30_000);

  it('a streamed turn cut after some tokens, or with a malformed chunk: an SSE error, nothing stored', async () => {
    llm.reset();
    llm.enqueue(openAiStream(['Half ', 'an ', 'answer'], [], { dropAfter: 2 }));
    const cut = conversation();
    const result = await turn(cut, true);
    expect(result.status).toBe(200);
    expect(result.text).toContain('event: error');
    expect(result.text).not.toContain('event: done');
    await recovers(cut);

    llm.enqueue({
      kind: 'sse',
      events: [
        JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }] }),
        'this is not JSON {{{',
        '[DONE]',
      ],
    });
    const malformed = conversation();
    const bad = await turn(malformed, true);
    expect(bad.text).toContain('event: error');
    expect(bad.text).not.toContain('event: done');
    await recovers(malformed);
  }, 30_000);
});
