import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LlmAdapter } from '../../src/modules/llm/interfaces/llm.interface.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { createLlmAdapter } from '../../src/modules/llm/create-llm-adapter.js';
import {
  LlmAbortedError,
  LlmConnectionError,
  LlmRateLimitError,
  LlmResponseError,
  LlmTimeoutError,
} from '../../src/modules/llm/llm-errors.js';
import type { LlmRequest } from '../../src/modules/llm/interfaces/llm.interface.js';
import type { OpenAiLlmOptions } from '../../src/modules/llm/llm-options.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';

const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());
afterEach(() => server.reset());

const fastRetry = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5_000 };
const adapter = (overrides: Partial<OpenAiLlmOptions> = {}): LlmAdapter =>
  createLlmAdapter({
    provider: 'openai',
    model: 'test-model',
    baseUrl,
    apiKey: 'sk-test',
    retry: fastRetry,
    ...overrides,
  });

const request: LlmRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Paris?', name: 'ana' },
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }],
    },
    { role: 'tool', content: '{"temp":21}', toolCallId: 'call_1', name: 'weather' },
  ],
  tools: [
    {
      name: 'weather',
      description: 'Current weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  toolChoice: { name: 'weather' },
};

describe('OpenAI (provider: openai, on @ai-sdk/openai, over HTTP)', () => {
  it('speaks the chat-completions wire format', async () => {
    server.enqueue(openAiCompletion('21 °C in Paris.'));
    const response = await adapter({ temperature: 0.2, maxTokens: 50 }).chat(request);
    expect(response).toEqual({
      message: { role: 'assistant', content: '21 °C in Paris.' },
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      finishReason: 'stop',
    });
    const [sent] = server.requests;
    expect(sent!.path).toBe('/chat/completions');
    expect(sent!.headers.authorization).toBe('Bearer sk-test');
    expect(sent!.body).toEqual({
      model: 'test-model',
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Be brief.' },
        // The AI SDK's prompt has no author names: a user message's `name` is not sent.
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'weather', arguments: '{"city":"Paris"}' },
            },
          ],
        },
        { role: 'tool', content: '{"temp":21}', tool_call_id: 'call_1' },
      ],
      tools: [{ type: 'function', function: request.tools![0] }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
    });
  });

  it('reads tool calls from a completion', async () => {
    server.enqueue(
      openAiCompletion(null, [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }]),
    );
    const { message, finishReason } = await adapter().chat({
      messages: [{ role: 'user', content: 'Oslo?' }],
    });
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' }],
    });
    expect(finishReason).toBe('tool_calls');
  });

  it('streams tokens and assembles streamed tool calls and usage', async () => {
    server.enqueue(
      openAiStream(
        ['Hel', 'lo', '!'],
        [{ id: 'c9', name: 'weather', arguments: '{"city":"Rome"}' }],
      ),
    );
    const tokens: string[] = [];
    const response = await adapter().stream(
      { messages: [{ role: 'user', content: 'hi' }] },
      (t: string) => tokens.push(t),
    );
    expect(tokens).toEqual(['Hel', 'lo', '!']);
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Hello!',
      toolCalls: [{ id: 'c9', name: 'weather', arguments: '{"city":"Rome"}' }],
    });
    expect(response.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect(server.requests[0]!.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('rejects a malformed stream chunk or body with LlmResponseError, without retrying', async () => {
    server.enqueue({
      kind: 'sse',
      events: ['{"choices":[{"delta":{"content":"ok"}}]}', '{not json'],
    });
    expect(
      await rejectionOf(
        adapter().stream({ messages: [{ role: 'user', content: 'x' }] }, () => undefined),
      ),
    ).toBeInstanceOf(LlmResponseError);
    server.enqueue({ kind: 'json', body: { choices: [] } });
    expect(
      await rejectionOf(adapter().chat({ messages: [{ role: 'user', content: 'x' }] })),
    ).toBeInstanceOf(LlmResponseError);
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    server.enqueue(
      { kind: 'json', status: 429, headers: { 'retry-after': '1' }, body: { error: 'slow down' } },
      openAiCompletion('ok'),
    );
    const started = performance.now();
    const response = await adapter().chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(response.message.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
    // The backoff alone would be ~1 ms here: the wait came from the header.
    expect(performance.now() - started).toBeGreaterThan(950);
  });

  it('retries 5xx and dropped connections, and gives up after maxRetries with the last error', async () => {
    server.enqueue(
      { kind: 'json', status: 503, body: 'busy' },
      { kind: 'drop' },
      openAiCompletion('finally'),
    );
    expect(
      (await adapter().chat({ messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toBe('finally');
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    server.enqueue({ kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' });
    expect(
      await rejectionOf(adapter().chat({ messages: [{ role: 'user', content: 'x' }] })),
    ).toBeInstanceOf(LlmConnectionError);
    expect(server.requests).toHaveLength(3);
    server.requests.length = 0;
    server.enqueue(
      { kind: 'json', status: 429, body: {} },
      { kind: 'json', status: 429, body: {} },
      { kind: 'json', status: 429, body: {} },
    );
    expect(
      await rejectionOf(adapter().chat({ messages: [{ role: 'user', content: 'x' }] })),
    ).toBeInstanceOf(LlmRateLimitError);
  });

  it('does not retry a 4xx other than 408/429', async () => {
    server.enqueue({ kind: 'json', status: 400, body: { error: { message: 'bad model' } } });
    const error = await rejectionOf(adapter().chat({ messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(LlmResponseError);
    expect((error as LlmResponseError).status).toBe(400);
    expect((error as Error).message).toContain('bad model');
    expect(server.requests).toHaveLength(1);
  });

  it('times out an attempt that never answers', async () => {
    server.enqueue({ kind: 'hang' });
    const error = await rejectionOf(
      adapter({ timeoutMs: 150, retry: { maxRetries: 0 } }).chat({
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expect(error).toBeInstanceOf(LlmTimeoutError);
  });

  it('stops on the caller’s abort signal, without retrying', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = adapter().chat({
      messages: [{ role: 'user', content: 'x' }],
      signal: controller.signal,
    });
    // Aborted once the request is at the server (a first call can take longer than a fixed wait).
    for (let i = 0; i < 200 && server.requests.length === 0; i += 1) await sleep(10);
    controller.abort(new Error('user left'));
    expect(await rejectionOf(pending)).toBeInstanceOf(LlmAbortedError);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a stream cut before its first token, but not one cut after it', async () => {
    server.enqueue(openAiStream(['a', 'b'], [], { dropAfter: 1 }), openAiStream(['a', 'b']));
    const tokens: string[] = [];
    const ok = await adapter().stream({ messages: [{ role: 'user', content: 'x' }] }, (t: string) =>
      tokens.push(t),
    );
    expect(ok.message.content).toBe('ab');
    expect(tokens).toEqual(['a', 'b']);
    server.requests.length = 0;
    server.enqueue(
      openAiStream(['a', 'b', 'c'], [], { dropAfter: 2, delayMs: 5 }),
      openAiStream(['never']),
    );
    const seen: string[] = [];
    const error = await rejectionOf(
      adapter().stream({ messages: [{ role: 'user', content: 'x' }] }, (t: string) => seen.push(t)),
    );
    expect(error).toBeInstanceOf(LlmConnectionError);
    expect(seen).toEqual(['a']);
    expect(server.requests).toHaveLength(1);
  });

  it('bounds a stream by the silence between chunks, not by its whole length', async () => {
    // 12 tokens 80 ms apart: ~1 s in all, past timeoutMs, but never 600 ms silent (a margin that
    // holds on a loaded machine: 40 ms apart against 150 ms once failed there).
    const tokens = Array.from({ length: 12 }, (_, i) => `t${i} `);
    server.enqueue(openAiStream(tokens, [], { delayMs: 80 }));
    const slowButSteady = await adapter({
      timeoutMs: 600,
      streamIdleTimeoutMs: 600,
      retry: { maxRetries: 0 },
    }).stream({ messages: [{ role: 'user', content: 'x' }] }, () => undefined);
    expect(slowButSteady.message.content).toBe(tokens.join(''));

    // A stream that goes silent after its first token: a timeout, and no retry (tokens went out).
    server.requests.length = 0;
    server.enqueue(openAiStream(['a', 'b'], [], { stall: { index: 2, ms: 600 } }));
    const seen: string[] = [];
    const error = await rejectionOf(
      adapter({ timeoutMs: 5_000, streamIdleTimeoutMs: 150 }).stream(
        { messages: [{ role: 'user', content: 'x' }] },
        (t: string) => seen.push(t),
      ),
    );
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as LlmTimeoutError).waitingFor).toBe('stream chunk');
    expect((error as Error).message).toContain('silent for 150 ms');
    expect(seen).toEqual(['a']);
    expect(server.requests).toHaveLength(1);

    // Silent before any token: retried, and the retry succeeds. (@ai-sdk/openai answers a stream
    // once its first output arrives, so until then `timeoutMs` is the deadline.)
    server.requests.length = 0;
    server.enqueue(
      openAiStream(['late'], [], { stall: { index: 1, ms: 600 } }),
      openAiStream(['on time']),
    );
    const retried = await adapter({ timeoutMs: 300, streamIdleTimeoutMs: 150 }).stream(
      { messages: [{ role: 'user', content: 'x' }] },
      () => undefined,
    );
    expect(retried.message.content).toBe('on time');
    expect(server.requests).toHaveLength(2);
  });

  it('refuses bad timeouts and retry settings at bootstrap, naming them', () => {
    for (const [options, name] of [
      [{ timeoutMs: 0 }, 'llm.timeoutMs'],
      [{ streamIdleTimeoutMs: 1.5 }, 'llm.streamIdleTimeoutMs'],
      [{ retry: { maxRetries: -1 } }, 'llm.retry.maxRetries'],
      [{ maxTokens: 0 }, 'llm.maxTokens'],
      [{ temperature: Number.NaN }, 'llm.temperature'],
    ] as const) {
      expect(() => createLlmAdapter({ provider: 'openai', model: 'm', ...options })).toThrow(
        InvalidModuleOptionsError,
      );
      expect(() => createLlmAdapter({ provider: 'openai', model: 'm', ...options })).toThrow(name);
    }
  });

  it('takes the base URL and key from OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    server.enqueue(openAiCompletion('from env'));
    const fromEnv = createLlmAdapter(
      { provider: 'openai', model: 'm' },
      { OPENAI_BASE_URL: `${baseUrl}/`, OPENAI_API_KEY: 'sk-env' },
    );
    expect(
      (await fromEnv.chat({ messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toBe('from env');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-env');
  });
});
