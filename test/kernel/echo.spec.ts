import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { memoryFilter } from '../../src/modules/kernel/filters/memory.filter.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { KernelService } from '../../src/modules/kernel/kernel.service.js';
import { EchoLlmAdapter } from '../../src/modules/kernel/llm/echo/echo.adapter.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';

const lookup: KernelToolDefinition = {
  name: 'lookup',
  description: 'Looks a word up',
  parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  handler: ({ word }) => `definition of ${String(word)}`,
};

let harness: KernelHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('echo model', () => {
  it('answers from the conversation, so memory shows', async () => {
    const store = new InMemoryChatMemoryStore();
    harness = await bootKernel({ llm: { provider: 'echo' }, filters: [memoryFilter(store)] });
    const context = { conversationId: 'demo' };
    const first = await harness.kernel.invoke([{ role: 'user', content: 'My name is Ada.' }], {
      context,
    });
    expect(first.message.content).toBe(
      'You said: "My name is Ada.". This is the first thing you told me.',
    );
    const second = await harness.kernel.invoke([{ role: 'user', content: 'What is my name?' }], {
      context,
    });
    expect(second.message.content).toBe(
      'You said: "What is my name?". Earlier you said: "My name is Ada.".',
    );
  });

  it('calls a tool on "/tool <name> <json>" and reports the result', async () => {
    harness = await bootKernel({ llm: { provider: 'echo' }, tools: [lookup] });
    const result = await harness.kernel.invoke([
      { role: 'user', content: '/tool lookup {"word":"kernel"}' },
    ]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.message.content).toBe('Tool results: lookup returned definition of kernel.');
  });

  it('replays a script, then echoes; the same input gives the same output', async () => {
    const scripted = () =>
      new EchoLlmAdapter({
        script: [
          { toolCalls: [{ name: 'lookup', arguments: { word: 'x' } }] },
          { content: 'scripted answer' },
        ],
      });
    const runs = await Promise.all(
      [scripted(), scripted()].map(async (llm) => {
        const local = await bootKernel({ llm, tools: [lookup] });
        try {
          const result = await local.kernel.invoke([{ role: 'user', content: 'go' }]);
          return result.messages.map(({ role, content, toolCalls }) => ({
            role,
            content,
            toolCalls,
          }));
        } finally {
          await local.close();
        }
      }),
    );
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]!.at(-1)!.content).toBe('scripted answer');
    expect(runs[0]![1]!.toolCalls).toEqual([
      { id: 'echo_call_1_0', name: 'lookup', arguments: '{"word":"x"}' },
    ]);
  });

  it('streams its answer word by word', async () => {
    harness = await bootKernel({ llm: { provider: 'echo' } });
    const tokens: string[] = [];
    for await (const event of harness.kernel.invokeStream([{ role: 'user', content: 'hi there' }]))
      if (event.type === 'token') tokens.push(event.text);
    expect(tokens.join('')).toBe('You said: "hi there". This is the first thing you told me.');
    expect(tokens.length).toBeGreaterThan(3);
  });
});

describe('KernelModule options', () => {
  it('accepts forRootAsync and validates llm and maxToolIterations at bootstrap', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        KernelModule.forRootAsync({ useFactory: () => ({ llm: { provider: 'echo' as const } }) }),
      ],
    }).compile();
    await moduleRef.init();
    expect(
      (await moduleRef.get(KernelService).invoke([{ role: 'user', content: 'a' }])).message.content,
    ).toContain('You said');
    await moduleRef.close();
    const boot = (options: object) =>
      rejectionOf(
        Test.createTestingModule({ imports: [KernelModule.forRoot(options as never)] })
          .compile()
          .then((m) => m.init()),
      );
    expect(await boot({ llm: { provider: 'gpt' } })).toBeInstanceOf(InvalidModuleOptionsError);
    expect(await boot({ llm: { provider: 'openai' } })).toBeInstanceOf(InvalidModuleOptionsError);
    expect(await boot({ llm: { provider: 'echo' }, maxToolIterations: -1 })).toBeInstanceOf(
      InvalidModuleOptionsError,
    );
    expect(await boot({ llm: { provider: 'echo' }, filters: [{}] })).toBeInstanceOf(
      InvalidModuleOptionsError,
    );
  });

  it('rejects invalid input messages before calling the model', async () => {
    harness = await bootKernel({ llm: { provider: 'echo' } });
    expect(
      String(await rejectionOf(harness.kernel.invoke([{ role: 'robot' as never, content: 'x' }]))),
    ).toContain('messages[0].role');
  });
});
