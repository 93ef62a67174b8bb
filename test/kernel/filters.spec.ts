import { afterEach, describe, expect, it } from '@jest/globals';
import { type CallHandler, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type Observable, map, of, retry, tap, throwError } from 'rxjs';
import {
  getKernelChatRequest,
  getKernelToolRequest,
  replaceKernelRequest,
} from '../../src/modules/kernel/context/kernel-execution-context.js';
import type {
  KernelFilter,
  KernelToolResult,
} from '../../src/modules/kernel/interfaces/kernel-filter.interface.js';
import type { LlmResponse } from '../../src/modules/llm/interfaces/llm.interface.js';
import { type LlmError, LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { KernelTool } from '../../src/modules/kernel/tools/kernel-tool.decorator.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type KernelHarness, bootKernel } from '../support/kernel-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const Audited = (level: string) => SetMetadata('audit-level', level);

@Injectable()
class ClockTools {
  @KernelTool({
    name: 'clock',
    description: 'Current time',
    parameters: { type: 'object', properties: {} },
  })
  @Audited('high')
  now(): string {
    return '12:00';
  }
}

/** Records what it sees, in a shared log, around both phases. */
class RecordingFilter implements KernelFilter {
  constructor(
    private readonly label: string,
    private readonly log: string[],
  ) {}
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const phase = context.getType<string>() === 'kernel-chat' ? 'chat' : 'tool';
    this.log.push(`${this.label}>${phase}`);
    return next.handle().pipe(tap(() => this.log.push(`${this.label}<${phase}`)));
  }
}

const toolCall = { toolCalls: [{ id: 'c1', name: 'clock', arguments: '{}' }] };
let harness: KernelHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('kernel filters (Nest interceptors)', () => {
  it('nest in the given order around both phases, first = outermost', async () => {
    const log: string[] = [];
    const llm = new ScriptedLlm([toolCall, { content: 'It is noon.' }]);
    harness = await bootKernel(
      { llm, filters: [new RecordingFilter('A', log), new RecordingFilter('B', log)] },
      [ClockTools],
    );
    const result = await harness.kernel.invoke([{ role: 'user', content: 'time?' }]);
    expect(result.message.content).toBe('It is noon.');
    expect(log).toEqual([
      'A>chat',
      'B>chat',
      'B<chat',
      'A<chat',
      'A>tool',
      'B>tool',
      'B<tool',
      'A<tool',
      'A>chat',
      'B>chat',
      'B<chat',
      'A<chat',
    ]);
  });

  it('see getType, getArgs, getClass and getHandler, so Reflector metadata works', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const reflector = new Reflector();
    const llm = new ScriptedLlm([toolCall, { content: 'done' }]);
    const inspector: KernelFilter = {
      intercept(context, next) {
        const [request] = context.getArgs<[unknown]>();
        seen.push({
          type: context.getType(),
          class: context.getClass().name,
          handler: context.getHandler().name,
          level: reflector.get('audit-level', context.getHandler()),
          request:
            context.getType<string>() === 'kernel-tool'
              ? getKernelToolRequest(context).name
              : getKernelChatRequest(context).round,
          sameArg: context.getArgByIndex(0) === request,
        });
        expect(() => context.switchToHttp()).toThrow(/unsupported/);
        return next.handle();
      },
    };
    harness = await bootKernel({ llm, filters: [inspector] }, [ClockTools]);
    await harness.kernel.invoke([{ role: 'user', content: 'time?' }]);
    expect(seen).toEqual([
      {
        type: 'kernel-chat',
        class: 'ScriptedLlm',
        handler: 'chat',
        level: undefined,
        request: 0,
        sameArg: true,
      },
      {
        type: 'kernel-tool',
        class: 'ClockTools',
        handler: 'now',
        level: 'high',
        request: 'clock',
        sameArg: true,
      },
      {
        type: 'kernel-chat',
        class: 'ScriptedLlm',
        handler: 'chat',
        level: undefined,
        request: 1,
        sameArg: true,
      },
    ]);
  });

  it('may short-circuit either phase with their own result', async () => {
    const llm = new ScriptedLlm([toolCall, { content: 'unused' }]);
    let tools = 0;
    const cache: KernelFilter = {
      intercept(context, next) {
        if (context.getType<string>() === 'kernel-tool') {
          tools += 1;
          return of<KernelToolResult>({ result: 'cached 09:00' });
        }
        return getKernelChatRequest(context).round === 1
          ? of<LlmResponse>({
              message: { role: 'assistant', content: 'from cache' },
              usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
            })
          : next.handle();
      },
    };
    harness = await bootKernel({ llm, filters: [cache] }, [ClockTools]);
    const result = await harness.kernel.invoke([{ role: 'user', content: 'time?' }]);
    expect(result.message.content).toBe('from cache');
    expect(result.messages[2]).toMatchObject({
      role: 'tool',
      content: 'cached 09:00',
      toolCallId: 'c1',
    });
    expect(llm.calls).toHaveLength(1);
    expect(tools).toBe(1);
  });

  it('may replace the result, and a replaced request reaches only the layers inside', async () => {
    const llm = new ScriptedLlm([{ content: 'secret 1234' }]);
    const seenByOuter: string[] = [];
    const outer: KernelFilter = {
      intercept(context, next) {
        return next
          .handle()
          .pipe(
            tap(() =>
              seenByOuter.push(getKernelChatRequest(context).messages.at(-1)!.content as string),
            ),
          );
      },
    };
    const rewrite: KernelFilter = {
      intercept(context, next) {
        const request = getKernelChatRequest(context);
        replaceKernelRequest(context, {
          ...request,
          messages: [...request.messages, { role: 'user', content: 'be careful' }],
        });
        return (next as CallHandler<LlmResponse>).handle().pipe(
          map((response) => ({
            ...response,
            message: {
              ...response.message,
              content: (response.message.content as string).replace(/\d/g, '#'),
            },
          })),
        );
      },
    };
    harness = await bootKernel({ llm, filters: [outer, rewrite] });
    const result = await harness.kernel.invoke([{ role: 'user', content: 'hi' }]);
    expect(result.message.content).toBe('secret ####');
    expect(llm.calls[0]!.messages.at(-1)!.content).toBe('be careful');
    expect(seenByOuter).toEqual(['hi']);
  });

  it('may call next again (retry), and errors propagate typed', async () => {
    const llm = new ScriptedLlm([
      { fail: new LlmResponseError('test', 503, 'busy') },
      { content: 'second try' },
    ]);
    const retryOnce: KernelFilter = {
      intercept: (_context, next) =>
        next.handle().pipe(
          retry({
            count: 1,
            delay: (error: LlmError) => (error.retryable ? of(0) : throwError(() => error)),
          }),
        ),
    };
    harness = await bootKernel({ llm, filters: [retryOnce] });
    expect((await harness.kernel.invoke([{ role: 'user', content: 'hi' }])).message.content).toBe(
      'second try',
    );
    expect(llm.calls).toHaveLength(2);

    llm.enqueue({ fail: new LlmResponseError('test', 400, 'bad') });
    const error = await rejectionOf(harness.kernel.invoke([{ role: 'user', content: 'hi' }]));
    expect(error).toBeInstanceOf(LlmResponseError);
    expect((error as LlmResponseError).status).toBe(400);
    expect(llm.calls).toHaveLength(3);
  });

  it('report a filter that emits nothing or returns no Observable', async () => {
    const silent: KernelFilter = { intercept: () => of() };
    harness = await bootKernel({ llm: new ScriptedLlm([{ content: 'x' }]), filters: [silent] });
    expect(
      String(await rejectionOf(harness.kernel.invoke([{ role: 'user', content: 'hi' }]))),
    ).toContain('without emitting');
  });

  it('may be classes resolved through DI', async () => {
    const log: string[] = [];
    @Injectable()
    class InjectedFilter implements KernelFilter {
      constructor(readonly reflector: Reflector) {}
      intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
        log.push(this.reflector instanceof Reflector ? 'with reflector' : 'without');
        return next.handle();
      }
    }
    harness = await bootKernel(
      { llm: new ScriptedLlm([{ content: 'x' }]), filters: [InjectedFilter] },
      [
        {
          provide: InjectedFilter,
          useFactory: (reflector: Reflector) => new InjectedFilter(reflector),
          inject: [Reflector],
        },
      ],
    );
    await harness.kernel.invoke([{ role: 'user', content: 'hi' }]);
    expect(log).toEqual(['with reflector']);
  });
});
