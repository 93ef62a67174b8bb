import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { memoryFilter } from '../../src/modules/kernel/filters/memory.filter.js';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { KernelAbortedError } from '../../src/modules/kernel/errors/kernel.errors.js';
import type {
  KernelFilter,
  TokenTransform,
} from '../../src/modules/kernel/interfaces/kernel-filter.interface.js';
import type { KernelStreamEvent } from '../../src/modules/kernel/interfaces/kernel-invoke.interface.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';

const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());
let harness: KernelHarness | undefined;
afterEach(async () => {
  server.reset();
  await harness?.close();
  harness = undefined;
});

const weather: KernelToolDefinition = {
  name: 'weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  handler: ({ city }) => ({ city, temp: 21 }),
};
const openai = () => ({
  provider: 'openai' as const,
  model: 'test',
  baseUrl,
  apiKey: 'k',
  retry: { maxRetries: 0 },
});

async function collect(events: AsyncIterable<KernelStreamEvent>): Promise<KernelStreamEvent[]> {
  const all: KernelStreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Holds tokens while they may be part of a number, and masks digits. */
class DigitMask implements KernelFilter {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
  createTokenTransform(): TokenTransform {
    let held = '';
    return {
      push: (token) => {
        held += token;
        const cut = held.search(/\d*$/);
        const out = held.slice(0, cut).replace(/\d/g, '#');
        held = held.slice(cut);
        return out;
      },
      flush: () => held.replace(/\d/g, '#'),
    };
  }
}

describe('kernel streaming over the OpenAI adapter (HTTP)', () => {
  it('yields streamed tool calls, tool results and tokens, then the result', async () => {
    server.enqueue(
      openAiStream([], [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }]),
      openAiStream(['It is ', '21', ' °C.']),
    );
    harness = await bootKernel({ llm: openai(), tools: [weather] });
    const events = await collect(
      harness.kernel.invokeStream([{ role: 'user', content: 'Paris?' }]),
    );
    expect(events.map((e) => e.type)).toEqual([
      'tool_call',
      'tool_result',
      'token',
      'token',
      'token',
      'result',
    ]);
    expect(events[0]).toEqual({
      type: 'tool_call',
      call: { id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
    });
    expect(events[1]).toEqual({
      type: 'tool_result',
      toolCallId: 'call_1',
      name: 'weather',
      result: { city: 'Paris', temp: 21 },
    });
    const result = events.at(-1) as Extract<KernelStreamEvent, { type: 'result' }>;
    expect(result.result.message.content).toBe('It is 21 °C.');
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'Paris?' },
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
      { role: 'tool', content: '{"city":"Paris","temp":21}', tool_call_id: 'call_1' },
    ]);
  });

  it('lets a filter rewrite or hold tokens without changing the final, stored message', async () => {
    const store = new InMemoryChatMemoryStore();
    server.enqueue(openAiStream(['Your PIN is 12', '34', ', keep it.']));
    harness = await bootKernel({ llm: openai(), filters: [memoryFilter(store), new DigitMask()] });
    const events = await collect(
      harness.kernel.invokeStream([{ role: 'user', content: 'pin?' }], {
        context: { conversationId: 'c' },
      }),
    );
    const tokens = events
      .filter((e) => e.type === 'token')
      .map((e) => (e as { text: string }).text);
    expect(tokens.join('')).toBe('Your PIN is ####, keep it.');
    expect(tokens).not.toContain('12');
    expect((await store.get('c')).at(-1)!.content).toBe('Your PIN is 1234, keep it.');
  });

  it('fails the stream with the invoke’s error', async () => {
    server.enqueue({ kind: 'json', status: 400, body: { error: 'bad' } });
    harness = await bootKernel({ llm: openai() });
    expect(
      String(
        await rejectionOf(collect(harness.kernel.invokeStream([{ role: 'user', content: 'x' }]))),
      ),
    ).toContain('HTTP 400');
  });

  it('runs a full non-streamed invoke over HTTP', async () => {
    server.enqueue(
      openAiCompletion(null, [{ id: 'c', name: 'weather', arguments: '{"city":"Oslo"}' }]),
      openAiCompletion('Cold.'),
    );
    harness = await bootKernel({ llm: openai(), tools: [weather] });
    const result = await harness.kernel.invoke([{ role: 'user', content: 'Oslo?' }]);
    expect(result.message.content).toBe('Cold.');
    expect(result.usage.totalTokens).toBe(30);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    const slow: KernelToolDefinition = {
      ...weather,
      name: 'slow',
      handler: () => controller.abort(new Error('user left')),
    };
    server.enqueue(
      openAiCompletion(null, [{ id: 'c', name: 'slow', arguments: '{"city":"x"}' }]),
      openAiCompletion('never'),
    );
    harness = await bootKernel({ llm: openai(), tools: [slow] });
    expect(
      await rejectionOf(
        harness.kernel.invoke([{ role: 'user', content: 'x' }], { signal: controller.signal }),
      ),
    ).toBeInstanceOf(KernelAbortedError);
    expect(server.requests).toHaveLength(1);
  });
});
