import { afterEach, describe, expect, it } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  DuplicateToolError,
  InvalidToolError,
  MaxToolIterationsError,
  UnknownToolError,
} from '../../src/modules/kernel/errors/kernel.errors.js';
import type {
  KernelToolDefinition,
  ToolContext,
} from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { KernelTool } from '../../src/modules/kernel/tools/kernel-tool.decorator.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';
import { bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const object = (properties: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

@Injectable()
class MathTools {
  readonly contexts: ToolContext[] = [];

  @KernelTool({
    name: 'add',
    description: 'a + b',
    parameters: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
  })
  add({ a, b }: Record<string, unknown>, context: ToolContext): number {
    this.contexts.push(context);
    return (a as number) + (b as number);
  }

  @KernelTool({ name: 'explode', description: 'always fails', parameters: object() })
  explode(): never {
    throw new Error('kaboom');
  }

  @KernelTool({
    name: 'slow',
    description: 'never finishes in time',
    parameters: object(),
    timeoutMs: 30,
  })
  slow(_args: Record<string, unknown>, context: ToolContext): Promise<string> {
    return new Promise((resolve) =>
      context.signal.addEventListener('abort', () => resolve('aborted')),
    );
  }
}

const calls = (...list: Array<[string, string, string?]>) => ({
  toolCalls: list.map(([name, args, id], i) => ({ id: id ?? `c${i}`, name, arguments: args })),
});

let harness: KernelHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('tool loop', () => {
  it('runs discovered tools with validated arguments and the tool context', async () => {
    const llm = new ScriptedLlm([calls(['add', '{"a":2,"b":3}', 'call_add']), { content: '5' }]);
    harness = await bootKernel({ llm }, [MathTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: '2+3' }], {
      context: { conversationId: 'c-1', entityId: 'e-1' },
    });
    expect(result.messages[2]).toMatchObject({
      role: 'tool',
      content: '5',
      toolCallId: 'call_add',
      name: 'add',
    });
    const [context] = harness.moduleRef.get(MathTools).contexts;
    const runId = result.messages[0]!.id!.split(':')[0];
    expect(context).toMatchObject({
      runId,
      conversationId: 'c-1',
      entityId: 'e-1',
      toolCallId: 'call_add',
      idempotencyKey: `${runId}:0:call_add`,
    });
    expect(context!.signal).toBeInstanceOf(AbortSignal);
    expect(llm.calls[0]!.tools.sort()).toEqual(['add', 'explode', 'slow']);
  });

  it('turns an unknown tool, bad JSON, invalid arguments, a throw and a timeout into error results and goes on', async () => {
    const llm = new ScriptedLlm([
      calls(
        ['nope', '{}'],
        ['add', '{"a":1,'],
        ['add', '{"a":"x","b":2}'],
        ['explode', '{}'],
        ['slow', '{}'],
        ['add', '{"a":1,"b":1}'],
      ),
      { content: 'recovered' },
    ]);
    harness = await bootKernel({ llm }, [MathTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'go' }]);
    const errors = result.messages
      .filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content as string) as unknown);
    expect(errors).toEqual([
      { error: 'unknown tool "nope"' },
      { error: expect.stringContaining('arguments are not valid JSON') },
      { error: expect.stringContaining('invalid arguments: /a must be number') },
      { error: 'kaboom' },
      { error: 'tool "slow" timed out after 30 ms' },
      2,
    ]);
    expect(result.message.content).toBe('recovered');
  });

  it('runs a round’s calls in parallel, results in call order, and serial tools one at a time', async () => {
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const tool = (
      name: string,
      run: () => Promise<unknown>,
      serial = false,
    ): KernelToolDefinition => ({
      name,
      description: name,
      parameters: object(),
      serial,
      handler: async () => {
        events.push(`${name} start`);
        const value = await run();
        events.push(`${name} end`);
        return value;
      },
    });
    const tools = [
      // "first" can only finish once "second" has started: they must run concurrently.
      tool('first', async () => (await firstMayEnd, 'one')),
      tool('second', async () => (releaseFirst(), 'two')),
      tool('barrier', async () => 'three', true),
      tool('after', async () => 'four'),
    ];
    const llm = new ScriptedLlm([
      calls(['first', '{}'], ['second', '{}'], ['barrier', '{}'], ['after', '{}']),
      { content: 'done' },
    ]);
    harness = await bootKernel({ llm, tools });
    const result = await harness.kernel.invoke([{ role: 'user', content: 'go' }]);
    expect(result.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    const at = (event: string) => events.indexOf(event);
    expect(at('barrier start')).toBeGreaterThan(Math.max(at('first end'), at('second end')));
    expect(at('after start')).toBeGreaterThan(at('barrier end'));
  });

  it('stops with MaxToolIterationsError when the model keeps asking for tools', async () => {
    const llm = new ScriptedLlm(Array.from({ length: 3 }, () => calls(['add', '{"a":1,"b":1}'])));
    harness = await bootKernel({ llm, maxToolIterations: 2 }, [MathTools]);
    const error = await rejectionOf(harness.kernel.invoke([{ role: 'user', content: 'loop' }]));
    expect(error).toBeInstanceOf(MaxToolIterationsError);
    expect(llm.calls).toHaveLength(3);
    llm.enqueue(calls(['add', '{"a":1,"b":1}']), { content: 'ok' });
    expect(
      (await harness.kernel.invoke([{ role: 'user', content: 'once' }], { maxToolIterations: 1 }))
        .message.content,
    ).toBe('ok');
  });

  it('offers a subset with forRoot({ tools }), plain tools, and per-invoke selections', async () => {
    const echoTool: KernelToolDefinition = {
      name: 'echo_tool',
      description: 'echo',
      parameters: object({ text: { type: 'string' } }),
      handler: ({ text }) => text,
    };
    const llm = new ScriptedLlm([
      { content: 'a' },
      { content: 'b' },
      calls(['echo_tool', '{"text":"hi"}']),
      { content: 'c' },
    ]);
    harness = await bootKernel({ llm, tools: ['add', echoTool] }, [MathTools]);
    await harness.kernel.invoke([{ role: 'user', content: 'x' }]);
    expect(llm.calls[0]!.tools).toEqual(['add', 'echo_tool']);
    await harness.kernel.invoke([{ role: 'user', content: 'x' }], { tools: ['echo_tool'] });
    expect(llm.calls[1]!.tools).toEqual(['echo_tool']);
    const extra: KernelToolDefinition = { ...echoTool, name: 'extra' };
    const result = await harness.kernel.invoke([{ role: 'user', content: 'x' }], {
      tools: [extra, 'echo_tool'],
    });
    expect(llm.calls[2]!.tools).toEqual(['extra', 'echo_tool']);
    expect(result.messages[2]!.content).toBe('hi');
    expect(
      await rejectionOf(
        harness.kernel.invoke([{ role: 'user', content: 'x' }], { tools: ['missing'] }),
      ),
    ).toBeInstanceOf(UnknownToolError);
    // Narrowing to nothing never widens to everything.
    llm.enqueue({ content: 'd' });
    await harness.kernel.invoke([{ role: 'user', content: 'x' }], { tools: [] });
    expect(llm.calls.at(-1)!.tools).toEqual([]);
  });

  it('adds plain tool objects to the discovered tools when no name is listed (kernel and agent)', async () => {
    const echoTool: KernelToolDefinition = {
      name: 'echo_tool',
      description: 'echo',
      parameters: object({ text: { type: 'string' } }),
      handler: ({ text }) => text,
    };
    const llm = new ScriptedLlm([calls(['add', '{"a":2,"b":3}']), { content: 'done' }]);
    harness = await bootKernel({ llm, tools: [echoTool] }, [MathTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'x' }]);
    expect(llm.calls[0]!.tools.sort()).toEqual(['add', 'echo_tool', 'explode', 'slow']);
    expect(result.messages[2]!.content).toBe('5');
    await harness.close();
    const none = new ScriptedLlm([{ content: 'no tools' }]);
    harness = await bootKernel({ llm: none, tools: [] }, [MathTools]);
    await harness.kernel.invoke([{ role: 'user', content: 'x' }]);
    expect(none.calls[0]!.tools).toEqual([]);
    await harness.close();
    const agentLlm = new ScriptedLlm([calls(['add', '{"a":1,"b":1}']), { content: 'done' }]);
    const agent = await bootAgent(
      { llm: agentLlm, tools: [echoTool], memory: false },
      [],
      [MathTools],
    );
    try {
      const run = await agent.agent.run({ conversationId: 'tools-added', message: 'x' });
      expect(run.toolCalls[0]).toMatchObject({ name: 'add', result: 2 });
    } finally {
      await agent.close();
    }
    harness = undefined;
  });

  it('fails bootstrap on duplicate tool names, unknown selected names and invalid schemas', async () => {
    @Injectable()
    class DuplicateAdd {
      @KernelTool({ name: 'add', description: 'again', parameters: object() })
      add(): number {
        return 0;
      }
    }
    const boot = (
      options: Parameters<typeof KernelModule.forRoot>[0],
      providers: Array<new (...args: never[]) => unknown> = [],
    ) =>
      rejectionOf(
        Test.createTestingModule({ imports: [KernelModule.forRoot(options)], providers })
          .compile()
          .then((m) => m.init()),
      );
    expect(await boot({ llm: new ScriptedLlm() }, [MathTools, DuplicateAdd])).toBeInstanceOf(
      DuplicateToolError,
    );
    expect(await boot({ llm: new ScriptedLlm(), tools: ['nope'] }, [MathTools])).toBeInstanceOf(
      UnknownToolError,
    );
    const badSchema: KernelToolDefinition = {
      name: 'bad',
      description: 'x',
      parameters: { type: 'no-such-type' },
      handler: () => 1,
    };
    expect(await boot({ llm: new ScriptedLlm(), tools: [badSchema] })).toBeInstanceOf(
      InvalidToolError,
    );
    const plainDuplicate: KernelToolDefinition = {
      name: 'add',
      description: 'x',
      parameters: object(),
      handler: () => 1,
    };
    expect(
      await boot({ llm: new ScriptedLlm(), tools: ['add', plainDuplicate] }, [MathTools]),
    ).toBeInstanceOf(DuplicateToolError);
  });
});
