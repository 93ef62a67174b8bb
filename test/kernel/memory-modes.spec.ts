import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { of, retry, tap } from 'rxjs';
import { join } from 'node:path';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { getKernelChatRequest } from '../../src/modules/kernel/context/kernel-execution-context.js';
import { memoryFilter } from '../../src/modules/kernel/filters/memory.filter.js';
import type { KernelFilter } from '../../src/modules/kernel/interfaces/kernel-filter.interface.js';
import { LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { KernelTool } from '../../src/modules/kernel/tools/kernel-tool.decorator.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { openChatMemoryModule } from '../support/chat-memory-instances.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { tempDir } from '../support/test-databases.js';

@Injectable()
class WeatherTools {
  @KernelTool({
    name: 'weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  weather({ city }: Record<string, unknown>): { city: unknown; temp: number } {
    return { city, temp: 21 };
  }
}

const weatherCall = {
  toolCalls: [{ id: 'call_w', name: 'weather', arguments: '{"city":"Paris"}' }],
};

// The memory filter over a real SQLite store.
let store: ChatMemoryStore;
let closeStore: () => Promise<void>;
beforeAll(async () => {
  const opened = await openChatMemoryModule({
    backend: 'sqlite',
    path: join(tempDir(), 'kernel.sqlite'),
  });
  store = opened.subject;
  closeStore = opened.close;
});
afterAll(() => closeStore());

let harness: KernelHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('full mode (no memory filter)', () => {
  it('accumulates the whole list locally within the tool loop', async () => {
    const llm = new ScriptedLlm([weatherCall, { content: '21 °C' }]);
    harness = await bootKernel({ llm }, [WeatherTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'Paris?' }]);
    expect(llm.calls[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(llm.calls[1]!.messages[2]).toMatchObject({
      role: 'tool',
      toolCallId: 'call_w',
      name: 'weather',
      content: '{"city":"Paris","temp":21}',
    });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.usage).toEqual({ promptTokens: 6, completionTokens: 4, totalTokens: 10 });
  });
});

describe('delta mode (memory filter)', () => {
  it('stores each delta and reply with stamped ids and sends the stored history', async () => {
    const llm = new ScriptedLlm([weatherCall, { content: '21 °C in Paris' }]);
    harness = await bootKernel({ llm, filters: [memoryFilter(store)] }, [WeatherTools]);
    const conversationId = `kernel-delta-${Date.now()}`;
    await store.add(conversationId, [
      { id: 'old-1', role: 'user', content: 'earlier question' },
      { id: 'old-2', role: 'assistant', content: 'earlier answer' },
    ]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'Paris?' }], {
      context: { conversationId },
    });
    const invokeId = result.messages[0]!.id!.split(':')[0];
    const stored = await store.get(conversationId);
    expect(stored.map((m) => m.id)).toEqual([
      'old-1',
      'old-2',
      `${invokeId}:0:0`,
      `${invokeId}:0:1`,
      `${invokeId}:1:0`,
      `${invokeId}:1:1`,
    ]);
    expect(stored.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(llm.calls[0]!.messages.map((m) => m.content)).toEqual([
      'earlier question',
      'earlier answer',
      'Paris?',
    ]);
    expect(llm.calls[1]!.messages).toHaveLength(5);
    expect(result.context.conversationId).toBe(conversationId);
    expect(result.messages.map((m) => m.id)).toEqual(stored.slice(2).map((m) => m.id));
  });

  it('passes only the delta to the filters outside the memory filter', async () => {
    const outerSaw: number[] = [];
    const outer: KernelFilter = {
      intercept(context, next) {
        if (context.getType<string>() === 'kernel-chat')
          outerSaw.push(getKernelChatRequest(context).messages.length);
        return next.handle();
      },
    };
    const llm = new ScriptedLlm([weatherCall, { content: 'ok' }]);
    harness = await bootKernel({ llm, filters: [outer, memoryFilter(store)] }, [WeatherTools]);
    await harness.kernel.invoke(
      [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
      { context: { conversationId: `kernel-outer-${Date.now()}` } },
    );
    expect(outerSaw).toEqual([2, 1]);
  });

  it('stores one copy of each message when a filter outside it retries', async () => {
    const llm = new ScriptedLlm([{ content: 'first' }, { content: 'second' }]);
    let attempts = 0;
    // Fails the first attempt after the memory filter stored the reply, then retries.
    const flakyThenRetry: KernelFilter = {
      intercept: (_context, next) =>
        next.handle().pipe(
          tap(() => {
            attempts += 1;
            if (attempts === 1) throw new Error('post-processing failed');
          }),
          retry(1),
        ),
    };
    harness = await bootKernel({ llm, filters: [flakyThenRetry, memoryFilter(store)] });
    const conversationId = `kernel-retry-${Date.now()}`;
    const result = await harness.kernel.invoke([{ role: 'user', content: 'hi' }], {
      context: { conversationId },
    });
    expect(llm.calls).toHaveLength(2);
    // The retried model call did not see the first attempt's reply.
    expect(llm.calls[1]!.messages.map((m) => m.content)).toEqual(['hi']);
    const stored = await store.get(conversationId);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(stored[1]!.id).toBe(result.message.id);
  });

  it('uses an ephemeral conversation without an id, and clears it on success and on failure', async () => {
    const seen: string[] = [];
    const spy: KernelFilter = {
      intercept(context, next) {
        if (context.getType<string>() === 'kernel-chat')
          seen.push(getKernelChatRequest(context).context.conversationId!);
        return next.handle();
      },
    };
    const llm = new ScriptedLlm([
      weatherCall,
      { content: 'ok' },
      { fail: new LlmResponseError('test', 400, 'no') },
    ]);
    harness = await bootKernel({ llm, filters: [spy, memoryFilter(store)] }, [WeatherTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'hi' }]);
    expect(seen[0]).toMatch(/^ephemeral:/);
    expect(seen[1]).toBe(seen[0]);
    expect(result.context.conversationId).toBeUndefined();
    expect(await store.version(seen[0]!)).toBe(0);
    // Threading the returned context into the next invoke (a common pattern) stays ephemeral.
    await rejectionOf(
      harness.kernel.invoke([{ role: 'user', content: 'hi again' }], { context: result.context }),
    );
    expect(seen[2]).toMatch(/^ephemeral:/);
    expect(seen[2]).not.toBe(seen[0]);
    expect(await store.version(seen[0]!)).toBe(0);
    expect(await store.version(seen[2]!)).toBe(0);
  });

  it('never clears a caller’s conversation, even when the invoke fails', async () => {
    const llm = new ScriptedLlm([{ fail: new LlmResponseError('test', 400, 'no') }]);
    harness = await bootKernel({ llm, filters: [memoryFilter(store)] });
    const conversationId = `kernel-keep-${Date.now()}`;
    await rejectionOf(
      harness.kernel.invoke([{ role: 'user', content: 'hi' }], { context: { conversationId } }),
    );
    expect((await store.get(conversationId)).map((m) => m.content)).toEqual(['hi']);
  });

  it('injects system prompts innermost, after history expansion, and never stores them', async () => {
    const llm = new ScriptedLlm([{ content: 'ok' }]);
    harness = await bootKernel({ llm, filters: [memoryFilter(store)] });
    const conversationId = `kernel-system-${Date.now()}`;
    await harness.kernel.invoke([{ role: 'user', content: 'hi' }], {
      context: { conversationId },
      systemPrompts: ['You are terse.', 'Answer in French.'],
    });
    expect(llm.calls[0]!.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are terse.'],
      ['system', 'Answer in French.'],
      ['user', 'hi'],
    ]);
    expect((await store.get(conversationId)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('short-circuits cleanly: a cached answer outside memory stores nothing', async () => {
    const cached: KernelFilter = {
      intercept: () =>
        of({
          message: { role: 'assistant', content: 'cached' },
          usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
        }),
    };
    harness = await bootKernel({ llm: new ScriptedLlm(), filters: [cached, memoryFilter(store)] });
    const conversationId = `kernel-cached-${Date.now()}`;
    expect(
      (
        await harness.kernel.invoke([{ role: 'user', content: 'hi' }], {
          context: { conversationId },
        })
      ).message.content,
    ).toBe('cached');
    expect(await store.version(conversationId)).toBe(0);
  });
});
