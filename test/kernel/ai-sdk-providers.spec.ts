import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv4 } from '@ai-sdk/openai-v4';
import { Test } from '@nestjs/testing';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { KernelService } from '../../src/modules/kernel/kernel.service.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { createLlmAdapter } from '../../src/modules/llm/create-llm-adapter.js';
import {
  LlmConnectionError,
  LlmUnsupportedContentError,
} from '../../src/modules/llm/llm-errors.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import type { LlmAdapter, LlmResponse } from '../../src/modules/llm/interfaces/llm.interface.js';
import type { AiSdkLanguageModel } from '../../src/modules/llm/ai-sdk/ai-sdk-language-model.js';
import {
  FakeLlmServer,
  anthropicMessage,
  openAiCompletion,
  openAiStream,
} from '../support/fake-llm-server.js';

const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());
afterEach(() => server.reset());

const look: KernelToolDefinition = {
  name: 'look',
  description: 'Describes a picture',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  handler: ({ n }) => ({ n, seen: n === 1 ? 'a cat' : 'a dog' }),
};
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The models under test: each AI SDK generation's real OpenAI provider, at the fake server. */
const generations: Array<[string, () => AiSdkLanguageModel]> = [
  [
    '@ai-sdk/openai 3 (spec v3, AI SDK 6)',
    () => createOpenAIv3({ baseURL: baseUrl, apiKey: 'k' }).chat('m'),
  ],
  [
    '@ai-sdk/openai 4 (spec v4, AI SDK 7)',
    () => createOpenAIv4({ baseURL: baseUrl, apiKey: 'k' }).chat('m'),
  ],
];

describe.each(generations)('the kernel on %s', (_name, modelOf) => {
  it('runs a streamed tool loop with an image in the user message (forRootAsync)', async () => {
    server.enqueue(
      openAiStream(
        [],
        [
          { id: 'c1', name: 'look', arguments: '{"n":1}' },
          { id: 'c2', name: 'look', arguments: '{"n":2}' },
        ],
      ),
      // The second round reuses the first round's call ids, as some servers do.
      openAiStream([], [{ id: 'c1', name: 'look', arguments: '{"n":2}' }]),
      openAiStream(['A cat ', 'and a dog.']),
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        KernelModule.forRootAsync({
          useFactory: () => ({
            llm: { model: modelOf(), retry: { maxRetries: 0 } },
            tools: [look],
          }),
        }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      const tokens: string[] = [];
      let result;
      for await (const event of moduleRef.get(KernelService).invokeStream([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these pictures?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
            { type: 'image', url: 'https://example.com/dog.jpg' },
          ],
        },
      ])) {
        if (event.type === 'token') tokens.push(event.text);
        if (event.type === 'result') result = event.result;
      }
      expect(tokens.join('')).toBe('A cat and a dog.');
      expect(result!.message.content).toBe('A cat and a dog.');
      const [first, second, third] = server.requests;
      expect(first!.body.messages).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these pictures?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg' } },
          ],
        },
      ]);
      expect(first!.body).toMatchObject({ stream: true, tools: [{ type: 'function' }] });
      const toolMessages = (third!.body.messages as Array<{ role: string; tool_call_id?: string }>)
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id);
      expect(toolMessages).toEqual(['c1', 'c2', 'c1']);
      expect(second!.body.messages).toHaveLength(4);
    } finally {
      await moduleRef.close();
    }
  });

  it('answers a plain chat with usage and finish reason', async () => {
    server.enqueue(
      openAiCompletion('Hi.', [], { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }),
    );
    const adapter = createLlmAdapter({ model: modelOf() });
    expect(await adapter.chat({ messages: [{ role: 'user', content: 'hi' }] })).toEqual({
      message: { role: 'assistant', content: 'Hi.' },
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      finishReason: 'stop',
    });
  });
});

describe("provider: 'openai-compatible' (@ai-sdk/openai-compatible, e.g. Ollama, vLLM)", () => {
  it('talks to the base URL, with the key only when set, streaming with usage', async () => {
    server.enqueue(openAiStream(['Hel', 'lo']), openAiCompletion('plain'));
    const adapter = createLlmAdapter({
      provider: 'openai-compatible',
      baseUrl: `${baseUrl}/v1/`,
      model: 'llama3.2',
      retry: { maxRetries: 0 },
    });
    await adapter.ready?.();
    expect(adapter.info).toEqual({ provider: 'openai-compatible', model: 'llama3.2' });
    const tokens: string[] = [];
    const streamed = await adapter.stream({ messages: [{ role: 'user', content: 'hi' }] }, (t) =>
      tokens.push(t),
    );
    expect(tokens).toEqual(['Hel', 'lo']);
    expect(streamed.usage).toEqual({ promptTokens: 7, completionTokens: 2, totalTokens: 9 });
    expect(
      (await adapter.chat({ messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toBe('plain');
    const [first] = server.requests;
    expect(first!.path).toBe('/v1/chat/completions');
    expect(first!.headers.authorization).toBeUndefined();
    expect(first!.body).toMatchObject({
      model: 'llama3.2',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('streams tool calls, several in one round', async () => {
    server.enqueue(
      openAiStream(
        ['Checking. '],
        [
          { id: 'a', name: 'look', arguments: '{"n":1}' },
          { id: 'b', name: 'look', arguments: '{"n":2}' },
        ],
      ),
    );
    const adapter = createLlmAdapter({
      provider: 'openai-compatible',
      baseUrl: `${baseUrl}/v1`,
      model: 'qwen',
    });
    const response = await adapter.stream(
      {
        messages: [{ role: 'user', content: 'look twice' }],
        tools: [{ name: 'look', description: 'Looks', parameters: { type: 'object' } }],
      },
      () => undefined,
    );
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Checking. ',
      toolCalls: [
        { id: 'a', name: 'look', arguments: '{"n":1}' },
        { id: 'b', name: 'look', arguments: '{"n":2}' },
      ],
    });
    expect(response.finishReason).toBe('tool_calls');
  });

  it('needs a base URL', () => {
    expect(() => createLlmAdapter({ provider: 'openai-compatible', model: 'm' } as never)).toThrow(
      'llm.baseUrl',
    );
  });
});

describe('parts a provider takes, and parts it cannot', () => {
  it('sends an image to Anthropic as an image block', async () => {
    server.enqueue(anthropicMessage('A pixel.'));
    const adapter = createLlmAdapter({ provider: 'anthropic', model: 'c', baseUrl, apiKey: 'k' });
    await adapter.chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is it?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
            { type: 'image', url: 'https://example.com/a.jpg' },
          ],
        },
      ],
    });
    expect((server.requests[0]!.body as { messages: unknown[] }).messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is it?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
      ],
    });
  });

  it('refuses, naming the media type, a file OpenAI’s Chat Completions cannot take', async () => {
    const adapter = createLlmAdapter({ provider: 'openai', model: 'm', baseUrl, apiKey: 'k' });
    const error = await rejectionOf(
      adapter.chat({
        messages: [
          {
            role: 'user',
            content: [{ type: 'file', data: 'UEsDBA==', mediaType: 'application/zip' }],
          },
        ],
      }),
    );
    expect(error).toBeInstanceOf(LlmUnsupportedContentError);
    expect((error as Error).message).toContain('application/zip');
    expect(server.requests).toHaveLength(0);
  });
});

describe("provider: 'anthropic' keeps reasoning and sends it back signed", () => {
  it('stores thinking with its signature and returns it as a thinking block', async () => {
    server.enqueue({
      kind: 'json',
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user greets me.', signature: 'sig-123' },
          { type: 'text', text: 'Hello!' },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 5, output_tokens: 9 },
      },
    });
    server.enqueue(anthropicMessage('Again.'));
    const adapter = createLlmAdapter({
      provider: 'anthropic',
      model: 'claude-test',
      baseUrl,
      apiKey: 'k',
      maxTokens: 2048,
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
    });
    const first = await adapter.chat({ messages: [{ role: 'user', content: 'hi' }] });
    await expectSignedThinkingSentBack(adapter, first, 'The user greets me.', 'sig-123');
    expect(server.requests[0]!.body).toMatchObject({
      max_tokens: expect.any(Number),
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
  });

  it('keeps a streamed signature (a signature_delta) and sends the thinking back signed', async () => {
    const event = (type: string, payload: Record<string, unknown>) => ({
      event: type,
      data: JSON.stringify({ type, ...payload }),
    });
    server.enqueue(
      {
        kind: 'sse',
        events: [
          event('message_start', { message: { usage: { input_tokens: 5, output_tokens: 1 } } }),
          event('content_block_start', {
            index: 0,
            content_block: { type: 'thinking', thinking: '' },
          }),
          event('content_block_delta', {
            index: 0,
            delta: { type: 'thinking_delta', thinking: 'Greeting.' },
          }),
          event('content_block_delta', {
            index: 0,
            delta: { type: 'signature_delta', signature: 'sig-9' },
          }),
          event('content_block_stop', { index: 0 }),
          event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
          event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hello!' } }),
          event('content_block_stop', { index: 1 }),
          event('message_delta', {
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: 7 },
          }),
          event('message_stop', {}),
        ],
      },
      anthropicMessage('Again.'),
    );
    const adapter = createLlmAdapter({ provider: 'anthropic', model: 'c', baseUrl, apiKey: 'k' });
    const tokens: string[] = [];
    const first = await adapter.stream({ messages: [{ role: 'user', content: 'hi' }] }, (t) =>
      tokens.push(t),
    );
    expect(tokens).toEqual(['Hello!']);
    await expectSignedThinkingSentBack(adapter, first, 'Greeting.', 'sig-9');
  });

  it('reports a stream cut before message_stop as a connection error', async () => {
    server.enqueue({
      kind: 'sse',
      events: [
        {
          event: 'message_start',
          data: JSON.stringify({
            type: 'message_start',
            message: { usage: { input_tokens: 1, output_tokens: 1 } },
          }),
        },
      ],
    });
    const adapter = createLlmAdapter({
      provider: 'anthropic',
      model: 'c',
      baseUrl,
      apiKey: 'k',
      retry: { maxRetries: 0 },
    });
    expect(
      await rejectionOf(
        adapter.stream({ messages: [{ role: 'user', content: 'hi' }] }, () => undefined),
      ),
    ).toBeInstanceOf(LlmConnectionError);
  });
});

/** The answer keeps the signed thinking, and the next request sends it back as a thinking block. */
async function expectSignedThinkingSentBack(
  adapter: LlmAdapter,
  first: LlmResponse,
  thinking: string,
  signature: string,
): Promise<void> {
  expect(first.message.content).toEqual([
    { type: 'reasoning', text: thinking, providerMetadata: { anthropic: { signature } } },
    { type: 'text', text: 'Hello!' },
  ]);
  await adapter.chat({
    messages: [{ role: 'user', content: 'hi' }, first.message, { role: 'user', content: 'again' }],
  });
  const sent = server.requests[1]!.body as { messages: Array<{ content: unknown }> };
  expect(sent.messages[1]!.content).toEqual([
    { type: 'thinking', thinking, signature },
    { type: 'text', text: 'Hello!' },
  ]);
}
