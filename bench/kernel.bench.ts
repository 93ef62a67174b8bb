/**
 * Kernel benchmark (`npm run bench:kernel`). Against an in-process model that answers at once:
 * - one invoke through 5 pass-through filters vs the same kernel with none vs calling the adapter
 *   directly (the floor), alternating call by call;
 * - a 3-round tool loop (3 tool rounds, then the answer) vs the floor doing the same 4 model calls
 *   and 3 tool calls directly;
 * - the OpenTelemetryFilter with no SDK registered (a no-op tracer) vs no filter, per model and tool
 *   call;
 * - an AI SDK model (the AI SDK's own `MockLanguageModelV3`, answering at once) through the kernel
 *   and through the adapter alone, vs calling the model's `doGenerate` directly (the floor);
 * - heap after 10,000 and after 100,000 invokes (forced GC), to show no per-call growth.
 * The overhead is reported in µs and as a share of a 1 ms model call.
 */
import 'reflect-metadata';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ChatMessage } from '../src/common/messages/chat-message.interface.js';
import { type KernelFilter, type KernelToolDefinition, OpenTelemetryFilter } from '../src/index.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
} from '../src/modules/llm/interfaces/llm.interface.js';
import { KernelModule } from '../src/modules/kernel/kernel.module.js';
import type { KernelModuleOptions } from '../src/modules/kernel/kernel.options.js';
import { KernelService } from '../src/modules/kernel/kernel.service.js';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { AiSdkLlmAdapter } from '../src/modules/llm/ai-sdk/ai-sdk.adapter.js';
import { measurePair } from './support/measure.js';

const ITERATIONS = Number(process.env.BENCH_KERNEL_ITERATIONS ?? 20_000);
const HEAP_INVOKES = Number(process.env.BENCH_HEAP_INVOKES ?? 100_000);
const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };

/** Answers at once: a tool call while the conversation has fewer than `toolRounds` tool results. */
class InstantLlm implements LlmAdapter {
  constructor(private readonly toolRounds = 0) {}
  async chat(request: LlmRequest): Promise<LlmResponse> {
    const results = request.messages.filter((m) => m.role === 'tool').length;
    if (results < this.toolRounds) {
      return {
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: `c${results}`, name: 'add', arguments: '{"a":1,"b":2}' }],
        },
        usage,
      };
    }
    return { message: { role: 'assistant', content: 'done' }, usage };
  }
  async stream(request: LlmRequest): Promise<LlmResponse> {
    return this.chat(request);
  }
}

class PassThrough implements KernelFilter {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle();
  }
}

const add: KernelToolDefinition = {
  name: 'add',
  description: 'a + b',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  handler: ({ a, b }) => (a as number) + (b as number),
};

async function kernel(options: KernelModuleOptions) {
  const app = await NestFactory.createApplicationContext(KernelModule.forRoot(options), {
    logger: ['error'],
  });
  return { service: app.get(KernelService), close: () => app.close() };
}

const input: ChatMessage[] = [{ role: 'user', content: 'hello' }];
const fmt = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
const share = (ms: number) => `${((ms / 1) * 100).toFixed(2)} %`;

const llm = new InstantLlm();
const five = await kernel({
  llm,
  filters: Array.from({ length: 5 }, () => new PassThrough()),
  tools: [],
});
const none = await kernel({ llm, tools: [] });
const direct = () => llm.chat({ messages: input });

const chain = await measurePair(
  () => five.service.invoke(input),
  () => none.service.invoke(input),
  ITERATIONS,
);
const total = await measurePair(() => five.service.invoke(input), direct, ITERATIONS);

// The OpenTelemetryFilter with no SDK registered (the no-op tracer a library sees by default): one
// model call per invoke, and the 7 calls (4 model, 3 tool) of a 3-round tool loop.
const traced = await kernel({ llm, filters: [new OpenTelemetryFilter()], tools: [] });
const otel = await measurePair(
  () => traced.service.invoke(input),
  () => none.service.invoke(input),
  ITERATIONS,
);

const loopLlm = new InstantLlm(3);
const loop = await kernel({
  llm: loopLlm,
  filters: Array.from({ length: 5 }, () => new PassThrough()),
  tools: [add],
});
const directLoop = async () => {
  const messages: ChatMessage[] = [...input];
  for (;;) {
    const { message } = await loopLlm.chat({ messages });
    messages.push(message);
    if (!message.toolCalls) return;
    for (const call of message.toolCalls) {
      const result = add.handler(
        JSON.parse(call.arguments) as Record<string, unknown>,
        {} as never,
      );
      messages.push({ role: 'tool', content: JSON.stringify(result), toolCallId: call.id });
    }
  }
};
const toolLoop = await measurePair(
  () => loop.service.invoke(input),
  directLoop,
  Math.ceil(ITERATIONS / 4),
);
const tracedLoop = await kernel({
  llm: loopLlm,
  filters: [new OpenTelemetryFilter()],
  tools: [add],
});
const bareLoop = await kernel({ llm: loopLlm, tools: [add] });
const otelLoop = await measurePair(
  () => tracedLoop.service.invoke(input),
  () => bareLoop.service.invoke(input),
  Math.ceil(ITERATIONS / 4),
);

// An AI SDK model: the kernel (and the adapter alone) vs the model's own doGenerate.
const model = new MockLanguageModelV3({
  doGenerate: async () => ({
    content: [{ type: 'text', text: 'done' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  }),
});
const aiSdk = await kernel({ llm: { model }, tools: [] });
const adapter = new AiSdkLlmAdapter(model);
const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello' }] }];
// (The mock's doGenerate is async: its PromiseLike is a Promise.)
const modelDirect = () => model.doGenerate({ prompt }) as Promise<unknown>;
const aiSdkKernel = await measurePair(() => aiSdk.service.invoke(input), modelDirect, ITERATIONS);
const aiSdkAdapter = await measurePair(
  () => adapter.chat({ messages: input }),
  modelDirect,
  ITERATIONS,
);
// For scale: what the AI SDK's own generateText costs over the same model call.
const aiSdkGenerate = await measurePair(
  () => generateText({ model, prompt: 'hello' }),
  modelDirect,
  Math.ceil(ITERATIONS / 4),
);
// The mock records every call: forget them, so the heap figures below measure the kernel.
model.doGenerateCalls.length = 0;
await aiSdk.close();

const gc = (globalThis as { gc?: () => void }).gc;
const heapAfter = async (service: KernelService, invokes: number): Promise<number> => {
  for (let i = 0; i < invokes; i += 1) await service.invoke(input);
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
const heapAt10k = await heapAfter(five.service, 10_000);
const heapAtEnd = await heapAfter(five.service, HEAP_INVOKES - 10_000);
const LOOP_HEAP_INVOKES = HEAP_INVOKES / 4;
const loopHeapStart = await heapAfter(loop.service, 5_000);
const loopHeapEnd = await heapAfter(loop.service, LOOP_HEAP_INVOKES - 5_000);
await Promise.all([
  five.close(),
  none.close(),
  loop.close(),
  traced.close(),
  tracedLoop.close(),
  bareLoop.close(),
]);

const perCall = (pair: { library: { p50Ms: number }; floor: { p50Ms: number } }) =>
  pair.library.p50Ms - pair.floor.p50Ms;
console.log(
  `Node ${process.version}; ${ITERATIONS} invokes per side, one in flight; GC ${gc ? 'forced' : 'NOT forced (run with --expose-gc)'}\n`,
);
console.log(
  '| measurement | library p50 | library p99 | floor p50 | floor p99 | overhead p50 | share of a 1 ms model call |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
console.log(
  `| 5 pass-through filters vs none (same kernel) | ${fmt(chain.library.p50Ms)} | ${fmt(chain.library.p99Ms)} | ${fmt(chain.floor.p50Ms)} | ${fmt(chain.floor.p99Ms)} | ${fmt(perCall(chain))} | ${share(perCall(chain))} |`,
);
console.log(
  `| invoke with 5 filters vs adapter.chat() | ${fmt(total.library.p50Ms)} | ${fmt(total.library.p99Ms)} | ${fmt(total.floor.p50Ms)} | ${fmt(total.floor.p99Ms)} | ${fmt(perCall(total))} | ${share(perCall(total))} |`,
);
console.log(
  `| 3-round tool loop, 5 filters vs direct calls | ${fmt(toolLoop.library.p50Ms)} | ${fmt(toolLoop.library.p99Ms)} | ${fmt(toolLoop.floor.p50Ms)} | ${fmt(toolLoop.floor.p99Ms)} | ${fmt(perCall(toolLoop))} | ${share(perCall(toolLoop) / 4)} per model call |`,
);
console.log(
  `| OpenTelemetryFilter (no SDK: no-op tracer) vs none, 1 model call | ${fmt(otel.library.p50Ms)} | ${fmt(otel.library.p99Ms)} | ${fmt(otel.floor.p50Ms)} | ${fmt(otel.floor.p99Ms)} | ${fmt(perCall(otel))} per call | ${share(perCall(otel))} |`,
);
console.log(
  `| OpenTelemetryFilter vs none, 3-round tool loop (7 calls) | ${fmt(otelLoop.library.p50Ms)} | ${fmt(otelLoop.library.p99Ms)} | ${fmt(otelLoop.floor.p50Ms)} | ${fmt(otelLoop.floor.p99Ms)} | ${fmt(perCall(otelLoop) / 7)} per call | ${share(perCall(otelLoop) / 7)} per call |`,
);
console.log(
  `| AI SDK model: kernel invoke vs model.doGenerate() | ${fmt(aiSdkKernel.library.p50Ms)} | ${fmt(aiSdkKernel.library.p99Ms)} | ${fmt(aiSdkKernel.floor.p50Ms)} | ${fmt(aiSdkKernel.floor.p99Ms)} | ${fmt(perCall(aiSdkKernel))} | ${share(perCall(aiSdkKernel))} |`,
);
console.log(
  `| AI SDK model: AiSdkLlmAdapter.chat() vs model.doGenerate() | ${fmt(aiSdkAdapter.library.p50Ms)} | ${fmt(aiSdkAdapter.library.p99Ms)} | ${fmt(aiSdkAdapter.floor.p50Ms)} | ${fmt(aiSdkAdapter.floor.p99Ms)} | ${fmt(perCall(aiSdkAdapter))} | ${share(perCall(aiSdkAdapter))} |`,
);
console.log(
  `| For scale: the AI SDK's generateText() vs model.doGenerate() | ${fmt(aiSdkGenerate.library.p50Ms)} | ${fmt(aiSdkGenerate.library.p99Ms)} | ${fmt(aiSdkGenerate.floor.p50Ms)} | ${fmt(aiSdkGenerate.floor.p99Ms)} | ${fmt(perCall(aiSdkGenerate))} | ${share(perCall(aiSdkGenerate))} |`,
);
console.log(
  `Tool loops: heap after 5,000: ${(loopHeapStart / 2 ** 20).toFixed(1)} MiB; after ${LOOP_HEAP_INVOKES.toLocaleString('en')}: ${(loopHeapEnd / 2 ** 20).toFixed(1)} MiB; growth ${((loopHeapEnd - loopHeapStart) / (LOOP_HEAP_INVOKES - 5_000)).toFixed(2)} bytes per invoke.`,
);
console.log(
  `\nHeap after 10,000 invokes: ${(heapAt10k / 2 ** 20).toFixed(1)} MiB; after ${HEAP_INVOKES.toLocaleString('en')}: ${(heapAtEnd / 2 ** 20).toFixed(1)} MiB; growth ${((heapAtEnd - heapAt10k) / (HEAP_INVOKES - 10_000)).toFixed(2)} bytes per invoke.`,
);
