import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { InMemoryChatMemoryStore } from '../../src/modules/chat-memory/backends/in-memory.chat-memory.store.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { memoryFilter } from '../../src/modules/kernel/filters/memory.filter.js';
import type { KernelToolDefinition } from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { KernelService } from '../../src/modules/kernel/kernel.service.js';
import { EchoLlmAdapter } from '../../src/modules/llm/echo/echo.adapter.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { bootAgent } from '../support/agent-harness.js';

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

  it('echoes the text of messages with parts, never an object', async () => {
    const { message } = await new EchoLlmAdapter().chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image', url: 'https://example.com/a.png' },
          ],
        },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
      ],
    });
    expect(message.content).toBe('You said: "And now?". Earlier you said: "Look at this".');
  });

  it('calls a tool on "/tool <name> <json>" and reports the result', async () => {
    harness = await bootKernel({ llm: { provider: 'echo', toolCommands: true }, tools: [lookup] });
    const result = await harness.kernel.invoke([
      { role: 'user', content: '/tool lookup {"word":"kernel"}' },
    ]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.message.content).toBe('Tool results: lookup returned definition of kernel.');
  });

  it('runs no tool on "/tool …" unless toolCommands is on: anyone who can send a message would call any tool', async () => {
    let ran = 0;
    const refund: KernelToolDefinition = {
      name: 'refund',
      description: 'Refunds an order',
      parameters: { type: 'object', properties: { amount: { type: 'number' } } },
      handler: () => (ran += 1),
    };
    harness = await bootKernel({ llm: { provider: 'echo' }, tools: [refund] });
    const result = await harness.kernel.invoke([
      { role: 'user', content: '/tool refund {"amount":1000000}' },
    ]);
    expect(ran).toBe(0);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const invalid = await rejectionOf(
      Test.createTestingModule({
        imports: [
          KernelModule.forRoot({ llm: { provider: 'echo', toolCommands: 'yes' } } as never),
        ],
      })
        .compile()
        .then((m) => m.init()),
    );
    expect(invalid).toMatchObject({ option: 'llm.toolCommands' });
  });

  it('gives every tool call of a conversation its own id, also under a window', async () => {
    // With a window the model sees histories of the same length every turn: ids derived from the
    // length repeated from turn 3 on.
    const agent = await bootAgent(
      { llm: { provider: 'echo', toolCommands: true }, tools: [lookup], memory: { window: 2 } },
      [ChatMemoryModule.forRoot({ backend: 'memory' })],
    );
    try {
      const ids: string[] = [];
      for (let turn = 0; turn < 5; turn += 1) {
        const result = await agent.agent.run({
          conversationId: 'echo-ids',
          message: `/tool lookup {"word":"w${turn}"}`,
        });
        ids.push(...result.toolCalls.map((call) => call.id));
      }
      expect(ids).toHaveLength(5);
      expect(new Set(ids).size).toBe(5);
    } finally {
      await agent.close();
    }
  });

  it('replays a script, then echoes; the same request gives the same output', async () => {
    const scripted = () =>
      new EchoLlmAdapter({
        script: [
          { toolCalls: [{ name: 'lookup', arguments: { word: 'x' } }] },
          { content: 'scripted answer' },
        ],
      });
    const request = { messages: [{ role: 'user' as const, content: 'go' }], requestId: 'run-1:1' };
    const runs = await Promise.all(
      [scripted(), scripted()].map(async (llm) => [
        (await llm.chat(request)).message,
        (await llm.chat(request)).message,
      ]),
    );
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]![0]!.toolCalls).toEqual([
      { id: 'echo_call_run-1:1_0', name: 'lookup', arguments: '{"word":"x"}' },
    ]);
    expect(runs[0]![1]!.content).toBe('scripted answer');
    // Through the kernel, the script drives a real tool loop.
    harness = await bootKernel({ llm: scripted(), tools: [lookup] });
    const result = await harness.kernel.invoke([{ role: 'user', content: 'go' }]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.message.content).toBe('scripted answer');
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
