import { describe, expect, it } from '@jest/globals';
import {
  APICallError,
  type LanguageModelV3StreamPart,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { createLlmAdapter } from '../../src/modules/llm/create-llm-adapter.js';
import type { LlmAdapter } from '../../src/modules/llm/interfaces/llm.interface.js';
import {
  LlmAbortedError,
  LlmConnectionError,
  LlmRateLimitError,
  LlmResponseError,
  LlmUnsupportedContentError,
} from '../../src/modules/llm/llm-errors.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';

const usage = {
  inputTokens: { total: 11, noCache: 11, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 7, text: 5, reasoning: 2 },
};
const stop = { unified: 'stop', raw: 'stop' } as const;
const adapterOf = (model: MockLanguageModelV3, retries = 2): LlmAdapter =>
  createLlmAdapter({ model, retry: { maxRetries: retries, baseDelayMs: 1 } });
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('Any AI SDK model (the AI SDK’s own MockLanguageModelV3)', () => {
  it('sends the conversation as the model’s prompt: parts, reasoning, tool calls and results', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'ok' }],
        usage,
        finishReason: stop,
        warnings: [],
      },
    });
    await adapterOf(model).chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image', url: 'https://example.com/cat.png' },
            { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
            { type: 'file', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'a.pdf' },
          ],
        },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'Look first.',
              providerMetadata: { anthropic: { signature: 's1' } },
            },
            { type: 'text', text: 'Checking.' },
          ],
          toolCalls: [
            { id: 'c1', name: 'look', arguments: '{"n":1}' },
            { id: 'c2', name: 'look', arguments: 'not json' },
          ],
        },
        { role: 'tool', content: 'a cat', toolCallId: 'c1' },
        { role: 'tool', content: 'a dog', toolCallId: 'c2', name: 'look' },
      ],
      tools: [{ name: 'look', description: 'Looks', parameters: { type: 'object' } }],
      toolChoice: { name: 'look' },
    });
    const [call] = model.doGenerateCalls;
    expect(call!.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'file', mediaType: 'image/*', data: new URL('https://example.com/cat.png') },
          { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'a.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Look first.',
            providerOptions: { anthropic: { signature: 's1' } },
          },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: { n: 1 } },
          // Providers take objects only: what is not a JSON object goes as {}.
          { type: 'tool-call', toolCallId: 'c2', toolName: 'look', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'look',
            output: { type: 'text', value: 'a cat' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'look',
            output: { type: 'text', value: 'a dog' },
          },
        ],
      },
    ]);
    expect(call!.tools).toEqual([
      { type: 'function', name: 'look', description: 'Looks', inputSchema: { type: 'object' } },
    ]);
    expect(call!.toolChoice).toEqual({ type: 'tool', toolName: 'look' });
  });

  it('reads text, reasoning, several tool calls, usage and the finish reason', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [
          { type: 'reasoning', text: 'Two lookups.', providerMetadata: { x: { sig: 'abc' } } },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: '{"n":1}' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'look', input: '{"n":2}' },
        ],
        usage,
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
        warnings: [],
      },
    });
    expect(await adapterOf(model).chat(ask)).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two lookups.', providerMetadata: { x: { sig: 'abc' } } },
          { type: 'text', text: 'Looking.' },
        ],
        toolCalls: [
          { id: 'c1', name: 'look', arguments: '{"n":1}' },
          { id: 'c2', name: 'look', arguments: '{"n":2}' },
        ],
      },
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
      finishReason: 'tool_calls',
    });
  });

  it('streams text deltas as tokens and assembles reasoning and tool calls', async () => {
    const model = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'reasoning-start', id: 'r' },
          { type: 'reasoning-delta', id: 'r', delta: 'Hm' },
          { type: 'reasoning-delta', id: 'r', delta: 'm.' },
          { type: 'reasoning-end', id: 'r', providerMetadata: { x: { sig: 'z' } } },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Hel' },
          { type: 'text-delta', id: 't', delta: 'lo' },
          { type: 'text-end', id: 't' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'look', input: '{}' },
          { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: undefined } },
        ]),
      },
    });
    const tokens: string[] = [];
    const response = await adapterOf(model).stream(ask, (token) => tokens.push(token));
    expect(tokens).toEqual(['Hel', 'lo']);
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Hmm.', providerMetadata: { x: { sig: 'z' } } },
          { type: 'text', text: 'Hello' },
        ],
        toolCalls: [{ id: 'c1', name: 'look', arguments: '{}' }],
      },
      usage: { promptTokens: 11, completionTokens: 7, totalTokens: 18 },
      finishReason: 'tool_calls',
    });
  });

  it('maps the provider’s errors: 429 retried after Retry-After, a stream error part final', async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls += 1;
        if (calls === 1) {
          throw new APICallError({
            message: 'Too Many Requests',
            url: 'http://127.0.0.1/x',
            requestBodyValues: {},
            statusCode: 429,
            responseHeaders: { 'retry-after-ms': '40' },
            isRetryable: true,
          });
        }
        return {
          content: [{ type: 'text', text: 'after' }],
          usage,
          finishReason: stop,
          warnings: [],
        };
      },
    });
    const started = performance.now();
    expect((await adapterOf(model).chat(ask)).message.content).toBe('after');
    expect(calls).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);

    const limited = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({
          message: 'Too Many Requests',
          url: 'http://127.0.0.1/x',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'retry-after': '0' },
          isRetryable: true,
        });
      },
    });
    const error = await rejectionOf(adapterOf(limited, 1).chat(ask));
    expect(error).toBeInstanceOf(LlmRateLimitError);
    expect(limited.doGenerateCalls).toHaveLength(2);

    const broken = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream([
          { type: 'error', error: { type: 'overloaded', message: 'busy' } },
        ]),
      },
    });
    const streamError = await rejectionOf(adapterOf(broken).stream(ask, () => undefined));
    expect(streamError).toBeInstanceOf(LlmResponseError);
    expect((streamError as Error).message).toContain('busy');
    expect(broken.doStreamCalls).toHaveLength(1);
  });

  it('names content a model cannot take, and does not retry it', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new UnsupportedFunctionalityError({
          functionality: "file part media type 'audio/x'",
        });
      },
    });
    const error = await rejectionOf(adapterOf(model).chat(ask));
    expect(error).toBeInstanceOf(LlmUnsupportedContentError);
    expect((error as Error).message).toContain('audio/x');
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('passes the abort signal to the model and stops without retrying', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => {
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason as Error));
        }),
    });
    const controller = new AbortController();
    const pending = adapterOf(model).chat({ ...ask, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    expect(await rejectionOf(pending)).toBeInstanceOf(LlmAbortedError);
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('refuses what is not a model of a supported specification, at bootstrap', () => {
    for (const [model, problem] of [
      ['gpt-4o', "openai('gpt-4o')"],
      [{ doGenerate: () => undefined }, 'must be an AI SDK language model'],
      [
        { specificationVersion: 'v9', doGenerate: () => undefined, doStream: () => undefined },
        'supported: v2, v3, v4',
      ],
    ] as const) {
      const attempt = () =>
        createLlmAdapter(
          { model } as never,
          {},
          {
            moduleName: 'AgentModule',
            option: 'llm',
          },
        );
      expect(attempt).toThrow(InvalidModuleOptionsError);
      expect(attempt).toThrow(problem);
      expect(attempt).toThrow('llm.model');
    }
    expect(() =>
      createLlmAdapter({
        model: new MockLanguageModelV3(),
        timeoutMs: 0,
      }),
    ).toThrow('llm.timeoutMs');
  });

  it('keeps the provider metadata a stream spreads over its parts, and on tool calls', async () => {
    const model = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
          // Anthropic: redacted data on the start, the signature on an empty delta.
          {
            type: 'reasoning-start',
            id: 'r',
            providerMetadata: { anthropic: { redactedData: 'x' } },
          },
          { type: 'reasoning-delta', id: 'r', delta: 'Think.' },
          {
            type: 'reasoning-delta',
            id: 'r',
            delta: '',
            providerMetadata: { anthropic: { signature: 'sig' } },
          },
          { type: 'reasoning-end', id: 'r' },
          { type: 'text-start', id: 't', providerMetadata: { openai: { itemId: 'msg_1' } } },
          { type: 'text-delta', id: 't', delta: 'Done.' },
          { type: 'text-end', id: 't' },
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'look',
            input: '{}',
            providerMetadata: { google: { thoughtSignature: 'ts' } },
          },
          // Run by the provider itself: not the app's call to answer.
          {
            type: 'tool-call',
            toolCallId: 'w',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
          { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: undefined } },
        ]),
      },
    });
    const { message } = await adapterOf(model).stream(ask, () => undefined);
    expect(message).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Think.',
          providerMetadata: { anthropic: { redactedData: 'x', signature: 'sig' } },
        },
        { type: 'text', text: 'Done.', providerMetadata: { openai: { itemId: 'msg_1' } } },
      ],
      toolCalls: [
        {
          id: 'c1',
          name: 'look',
          arguments: '{}',
          providerMetadata: { google: { thoughtSignature: 'ts' } },
        },
      ],
    });
    // Sent back as it came; an empty assistant message is left out.
    const echo = new MockLanguageModelV3({
      doGenerate: { content: [], usage, finishReason: stop, warnings: [] },
    });
    await adapterOf(echo).chat({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null },
        message,
        { role: 'tool', content: 'seen', toolCallId: 'c1' },
      ],
    });
    const prompt = echo.doGenerateCalls[0]!.prompt;
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(prompt[1]!.content).toEqual([
      {
        type: 'reasoning',
        text: 'Think.',
        providerOptions: { anthropic: { redactedData: 'x', signature: 'sig' } },
      },
      { type: 'text', text: 'Done.', providerOptions: { openai: { itemId: 'msg_1' } } },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'look',
        input: {},
        providerOptions: { google: { thoughtSignature: 'ts' } },
      },
    ]);
  });

  it('retries a stream that ends before it finished; an error part is the provider’s answer, final', async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls += 1;
        return {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>(
            calls === 1
              ? [{ type: 'stream-start', warnings: [] }]
              : [
                  { type: 'text-delta', id: 't', delta: 'whole' },
                  { type: 'finish', usage, finishReason: stop },
                ],
          ),
        };
      },
    });
    expect((await adapterOf(model).stream(ask, () => undefined)).message.content).toBe('whole');
    expect(calls).toBe(2);

    const cut = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream([{ type: 'text-delta', id: 't', delta: 'half' }]),
      },
    });
    expect(await rejectionOf(adapterOf(cut).stream(ask, () => undefined))).toBeInstanceOf(
      LlmConnectionError,
    );
    expect(cut.doStreamCalls).toHaveLength(1); // text went out: not retried

    const refused = new MockLanguageModelV3({
      doStream: {
        stream: convertArrayToReadableStream([
          {
            type: 'error',
            error: {
              message: 'This model’s maximum context length is 8192 tokens',
              code: 'context_length_exceeded',
            },
          },
        ]),
      },
    });
    const error = await rejectionOf(adapterOf(refused).stream(ask, () => undefined));
    expect(error).toBeInstanceOf(LlmResponseError);
    expect((error as Error).message).toContain('maximum context length');
    expect(refused.doStreamCalls).toHaveLength(1);
  });
});
