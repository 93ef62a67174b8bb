import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv4 } from '@ai-sdk/openai-v4';
import * as ai6 from 'ai';
import * as ai7 from 'ai-v7';
import { z } from 'zod';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { MAX_INLINE_PART_BYTES } from '../../src/common/messages/content-parts.js';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { agentMemoryMiddleware } from '../../src/modules/ai-sdk/agent-memory.middleware.js';
import {
  FakeLlmServer,
  type RecordedRequest,
  openAiCompletion,
  openAiStream,
} from '../support/fake-llm-server.js';

// The AI SDK logs its warnings (e.g. on the deprecated image part used here) unless told not to.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());
afterEach(() => server.reset());

type Sdk = typeof ai6;
/** The real `ai` of AI SDK 6 and 7, each with its generation's OpenAI provider. */
const sdks: Array<[string, Sdk, (url: string) => unknown]> = [
  ['ai 6', ai6, (url) => createOpenAIv3({ baseURL: url, apiKey: 'k' }).chat('m')],
  ['ai 7', ai7 as unknown as Sdk, (url) => createOpenAIv4({ baseURL: url, apiKey: 'k' }).chat('m')],
];

const roles = (request: RecordedRequest) =>
  (request.body.messages as Array<{ role: string; content: unknown }>).map((m) =>
    typeof m.content === 'string' ? `${m.role}:${m.content}` : m.role,
  );

describe('agentMemoryMiddleware types', () => {
  it('is taken as it is typed by AI SDK 6’s and 7’s wrapLanguageModel (no casts)', () => {
    const store = new InMemoryChatMemoryStore();
    const wrapped = [
      ai6.wrapLanguageModel({
        model: createOpenAIv3({ apiKey: 'k' }).chat('m'),
        middleware: agentMemoryMiddleware({ store, conversationId: 'c' }),
      }),
      ai7.wrapLanguageModel({
        model: createOpenAIv4({ apiKey: 'k' }).chat('m'),
        middleware: agentMemoryMiddleware({ store, conversationId: 'c' }),
      }),
    ];
    expect(wrapped.map((model) => model.specificationVersion)).toEqual(['v3', 'v4']);
  });

  it('refuses a misspelt option or a bad value when it is made, not at the first call', () => {
    const store = new InMemoryChatMemoryStore();
    expect(() => agentMemoryMiddleware({ store, conversationID: 'c' } as never)).toThrow(
      'options.conversationID: is not an option',
    );
    expect(() => agentMemoryMiddleware({ store, conversationId: '' })).toThrow(
      InvalidArgumentError,
    );
    expect(() => agentMemoryMiddleware({ store, conversationId: 'c', window: -1 })).toThrow(
      'options.window',
    );
    expect(() => agentMemoryMiddleware({ store: {} as never, conversationId: 'c' })).toThrow(
      'options.store',
    );
  });
});

describe.each(sdks)('agentMemoryMiddleware with %s', (_name, sdk, modelAt) => {
  const memoryModel = (store: InMemoryChatMemoryStore, conversationId: string, turnId?: string) =>
    sdk.wrapLanguageModel({
      model: modelAt(baseUrl) as never,
      middleware: agentMemoryMiddleware({ store, conversationId, turnId }) as never,
    });
  const weather = sdk.tool({
    description: 'Weather of a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  });

  it('generateText: sends the stored window, stores the turn with its tool rounds at once', async () => {
    const store = new InMemoryChatMemoryStore();
    await store.add('c', [
      { role: 'user', content: 'I live in Paris.' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    server.enqueue(
      openAiCompletion(null, [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }]),
      openAiCompletion('21 °C in Paris.'),
    );
    const result = await sdk.generateText({
      model: memoryModel(store, 'c') as never,
      system: 'Be brief.',
      prompt: 'Weather where I live?',
      tools: { weather },
      stopWhen: sdk.stepCountIs(3),
    });
    expect(result.text).toBe('21 °C in Paris.');
    expect(roles(server.requests[0]!)).toEqual([
      'system:Be brief.',
      'user:I live in Paris.',
      'assistant:Noted.',
      'user:Weather where I live?',
    ]);
    // The second step sends the same window, then the step's own call and result.
    expect(roles(server.requests[1]!)).toEqual([
      'system:Be brief.',
      'user:I live in Paris.',
      'assistant:Noted.',
      'user:Weather where I live?',
      'assistant',
      expect.stringMatching(/^tool:/),
    ]);
    const stored = await store.get('c');
    expect(stored.slice(2).map(({ id: _id, ...m }) => m)).toEqual([
      { role: 'user', content: 'Weather where I live?' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'call_1',
        name: 'weather',
        content: '{"city":"Paris","celsius":21}',
      },
      { role: 'assistant', content: '21 °C in Paris.' },
    ]);
    expect(await store.version('c')).toBe(6);
  });

  it('streamText: stores the turn when the stream finishes, once per turn id', async () => {
    const store = new InMemoryChatMemoryStore();
    for (let attempt = 0; attempt < 2; attempt += 1) {
      server.enqueue(openAiStream(['Hel', 'lo!']));
      const result = sdk.streamText({
        model: memoryModel(store, 'c', 'turn-1') as never,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hi, look:' },
              { type: 'image', image: new URL('https://example.com/cat.png') },
            ],
          },
        ],
      });
      expect(await result.text).toBe('Hello!');
    }
    expect(await store.get('c')).toEqual([
      {
        id: 'turn-1:0',
        role: 'user',
        content: [
          { type: 'text', text: 'Hi, look:' },
          { type: 'image', url: 'https://example.com/cat.png' },
        ],
      },
      { id: 'turn-1:1', role: 'assistant', content: 'Hello!' },
    ]);
    // The retry is the same turn: it does not see the first attempt's copy as history.
    expect(roles(server.requests[1]!)).toEqual(['user']);
  });

  it('goes by the tool calls, not the finish reason: a forced call that says "stop" is not the end', async () => {
    const store = new InMemoryChatMemoryStore();
    // OpenAI answers a forced tool_choice with finish_reason "stop" and the call.
    const forced = openAiCompletion(null, [
      { id: 'c1', name: 'weather', arguments: '{"city":"Oslo"}' },
    ]);
    (
      forced as { body: { choices: Array<{ finish_reason: string }> } }
    ).body.choices[0]!.finish_reason = 'stop';
    server.enqueue(forced, openAiCompletion('3 °C in Oslo.'));
    await sdk.generateText({
      model: memoryModel(store, 'c') as never,
      prompt: 'Oslo?',
      tools: { weather },
      stopWhen: sdk.stepCountIs(3),
    });
    expect((await store.get('c')).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    // The second step saw the first step's messages once (nothing was stored in between).
    expect(roles(server.requests[1]!)).toEqual([
      'user:Oslo?',
      'assistant',
      expect.stringMatching(/^tool:/),
    ]);
  });

  it('refuses a message it could not store before calling the model', async () => {
    const store = new InMemoryChatMemoryStore();
    await expect(
      sdk.generateText({
        model: memoryModel(store, 'c') as never,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'file',
                data: new Uint8Array(MAX_INLINE_PART_BYTES + 1),
                mediaType: 'application/pdf',
              },
            ],
          },
        ],
        maxRetries: 0,
      }),
    ).rejects.toThrow(`more than the ${MAX_INLINE_PART_BYTES}`);
    expect(server.requests).toHaveLength(0);
  });

  it('stores nothing when the call fails or the stream is aborted', async () => {
    const store = new InMemoryChatMemoryStore();
    server.enqueue({ kind: 'json', status: 400, body: { error: { message: 'bad' } } });
    await expect(
      sdk.generateText({
        model: memoryModel(store, 'c') as never,
        prompt: 'x',
        maxRetries: 0,
      }),
    ).rejects.toThrow();
    server.enqueue(openAiStream(['a', 'b', 'c', 'd'], [], { delayMs: 50 }));
    const controller = new AbortController();
    const result = sdk.streamText({
      model: memoryModel(store, 'c') as never,
      prompt: 'y',
      abortSignal: controller.signal,
      onError: () => undefined,
    });
    for await (const text of result.textStream) {
      if (text) controller.abort();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await store.version('c')).toBe(0);
  });
});
