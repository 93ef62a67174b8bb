import { createLlmAdapter } from '../../src/modules/llm/create-llm-adapter.js';
import type { LlmAdapter } from '../../src/modules/llm/interfaces/llm.interface.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  LlmConnectionError,
  LlmRateLimitError,
  LlmResponseError,
} from '../../src/modules/llm/llm-errors.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { FakeLlmServer, anthropicMessage, anthropicStream } from '../support/fake-llm-server.js';

const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());
afterEach(() => server.reset());

const adapter = (): LlmAdapter =>
  createLlmAdapter({
    provider: 'anthropic',
    model: 'claude-test',
    baseUrl,
    apiKey: 'ak-test',
    retry: { maxRetries: 2, baseDelayMs: 1 },
  });

describe('Anthropic (provider: anthropic, on @ai-sdk/anthropic, over HTTP)', () => {
  it('speaks the Messages API: separate system, tool_use and tool_result blocks, merged turns', async () => {
    server.enqueue(anthropicMessage('It is 21 °C.'));
    const response = await adapter().chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Use metric.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          toolCalls: [
            { id: 'tu_1', name: 'weather', arguments: '{"city":"Paris"}' },
            { id: 'tu_2', name: 'weather', arguments: '{"city":"Rome"}' },
          ],
        },
        { role: 'tool', content: '21', toolCallId: 'tu_1' },
        { role: 'tool', content: '25', toolCallId: 'tu_2' },
      ],
      tools: [{ name: 'weather', description: 'Weather', parameters: { type: 'object' } }],
      toolChoice: 'required',
    });
    expect(response).toEqual({
      message: { role: 'assistant', content: 'It is 21 °C.' },
      usage: { promptTokens: 12, completionTokens: 4, totalTokens: 16 },
      finishReason: 'stop',
    });
    const [sent] = server.requests;
    expect(sent!.path).toBe('/v1/messages');
    expect(sent!.headers['x-api-key']).toBe('ak-test');
    expect(sent!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent!.body).toEqual({
      model: 'claude-test',
      // Not set here: @ai-sdk/anthropic's default for the model.
      max_tokens: expect.any(Number),
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use metric.' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'tu_1', name: 'weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'tu_2', name: 'weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'tu_1', content: '21' },
            { type: 'tool_result', tool_use_id: 'tu_2', content: '25' },
          ],
        },
      ],
      tools: [{ name: 'weather', description: 'Weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    });
  });

  it('reads tool_use blocks as tool calls', async () => {
    server.enqueue(
      anthropicMessage(null, [{ id: 'tu_9', name: 'weather', input: { city: 'Oslo' } }]),
    );
    const { message, finishReason } = await adapter().chat({
      messages: [{ role: 'user', content: 'Oslo?' }],
    });
    expect(message).toEqual({
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'tu_9', name: 'weather', arguments: '{"city":"Oslo"}' }],
    });
    expect(finishReason).toBe('tool_calls');
  });

  it('streams text and assembles tool_use input from partial JSON', async () => {
    server.enqueue(
      anthropicStream(
        ['Let me ', 'check.'],
        [{ id: 'tu_3', name: 'weather', input: { city: 'Lima', days: 2 } }],
      ),
    );
    const tokens: string[] = [];
    const response = await adapter().stream(
      { messages: [{ role: 'user', content: 'Lima?' }] },
      (t) => tokens.push(t),
    );
    expect(tokens).toEqual(['Let me ', 'check.']);
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Let me check.',
      toolCalls: [{ id: 'tu_3', name: 'weather', arguments: '{"city":"Lima","days":2}' }],
    });
    expect(response.usage).toEqual({ promptTokens: 9, completionTokens: 6, totalTokens: 15 });
    expect(response.finishReason).toBe('tool_calls');
  });

  it('retries 529 (overloaded) and honours Retry-After on 429', async () => {
    server.enqueue(
      { kind: 'json', status: 529, body: { type: 'error', error: { type: 'overloaded_error' } } },
      anthropicMessage('ok'),
    );
    expect(
      (await adapter().chat({ messages: [{ role: 'user', content: 'x' }] })).message.content,
    ).toBe('ok');
    server.reset();
    server.enqueue(
      ...Array.from({ length: 3 }, () => ({
        kind: 'json' as const,
        status: 429,
        headers: { 'retry-after': '0' },
        body: {},
      })),
    );
    const error = await rejectionOf(adapter().chat({ messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(LlmRateLimitError);
    expect((error as LlmRateLimitError).retryAfterMs).toBe(0);
    expect(server.requests).toHaveLength(3);
  });

  it('reports a cut stream and a stream error event', async () => {
    server.enqueue(anthropicStream(['a', 'b'], [], { dropAfter: 4 }));
    expect(
      await rejectionOf(
        adapter().stream({ messages: [{ role: 'user', content: 'x' }] }, () => undefined),
      ),
    ).toBeInstanceOf(LlmConnectionError);
    server.reset();
    server.enqueue({
      kind: 'sse',
      events: [
        { event: 'error', data: '{"type":"error","error":{"type":"invalid_request_error"}}' },
      ],
    });
    expect(
      await rejectionOf(
        adapter().stream({ messages: [{ role: 'user', content: 'x' }] }, () => undefined),
      ),
    ).toBeInstanceOf(LlmResponseError);
  });
});
