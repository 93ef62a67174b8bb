import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ChatMemoryModule,
  type KernelToolDefinition,
  LongtermMemoryModule,
  OpenTelemetryFilter,
} from 'nest-agent-memory';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const llm = new FakeLlmServer();
let llmUrl = '';
let harness: AgentHarness | undefined;

beforeAll(async () => {
  provider.register();
  llmUrl = await llm.start();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  exporter.reset();
});
afterAll(async () => {
  await llm.stop();
  await provider.shutdown();
  trace.disable();
});

const remember: KernelToolDefinition = {
  name: 'remember',
  description: 'Saves a fact',
  parameters: {
    type: 'object',
    properties: { key: { type: 'string' }, fact: { type: 'string' } },
    required: ['key', 'fact'],
  },
  handler: ({ key, fact }, context) => {
    context.longterm!.save(String(key), fact);
    return 'saved';
  },
};

async function runToolTurn(captureContent: boolean) {
  llm.reset();
  llm.enqueue(
    openAiCompletion(null, [
      { id: 'call_0', name: 'remember', arguments: '{"key":"city","fact":"Lisbon"}' },
    ]),
    openAiCompletion('Noted.'),
  );
  harness = await bootAgent(
    {
      llm: { provider: 'openai', baseUrl: llmUrl, model: 'stub', retry: { maxRetries: 0 } },
      tools: [remember],
      filters: [new OpenTelemetryFilter({ captureContent })],
    },
    [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
    ],
  );
  exporter.reset();
  const result = await harness.agent.run({
    conversationId: 'otel-c1',
    entityId: 'otel-u1',
    message: 'I live in Lisbon',
    runId: `otel-run-${captureContent}`,
  });
  return { result, spans: exporter.getFinishedSpans() };
}

interface SpanTree {
  name: string;
  children: SpanTree[];
}

/** The tree of spans under `root` that `keep` keeps, children in start order. */
function tree(
  spans: ReadableSpan[],
  root: ReadableSpan,
  keep: (span: ReadableSpan) => boolean,
): SpanTree {
  const children = spans
    .filter((span) => span.parentSpanContext?.spanId === root.spanContext().spanId && keep(span))
    .sort((a, b) => hrtime(a) - hrtime(b));
  return { name: root.name, children: children.map((child) => tree(spans, child, keep)) };
}
const hrtime = (span: ReadableSpan) => span.startTime[0] * 1e9 + span.startTime[1];
const isGenAi = (span: ReadableSpan) => 'gen_ai.operation.name' in span.attributes;

describe('OpenTelemetryFilter and the agent’s spans', () => {
  it('traces a turn with a tool round as agent run → model call → tool call → model call', async () => {
    const { result, spans } = await runToolTurn(false);
    const roots = spans.filter((span) => span.parentSpanContext === undefined);
    expect(roots.map((span) => span.name)).toEqual(['invoke_agent']);
    const run = roots[0]!;
    expect(tree(spans, run, isGenAi)).toEqual({
      name: 'invoke_agent',
      children: [
        { name: 'chat stub', children: [] },
        { name: 'execute_tool remember', children: [] },
        { name: 'chat stub', children: [] },
      ],
    });
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': 'otel-c1',
      'agent_memory.run_id': 'otel-run-false',
      'agent_memory.attempt': 1,
      'agent_memory.outcome': 'completed',
      'gen_ai.usage.input_tokens': result.usage.promptTokens,
      'gen_ai.usage.output_tokens': result.usage.completionTokens,
      'agent_memory.longterm.flushed': 1,
    });
    const [firstCall, tool] = tree(spans, run, isGenAi).children.map((node) =>
      spans.find((span) => span.name === node.name)!,
    );
    expect(firstCall!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'stub',
      'gen_ai.conversation.id': 'otel-c1',
      'agent_memory.run_id': 'otel-run-false',
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(typeof firstCall!.attributes['gen_ai.usage.input_tokens']).toBe('number');
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'remember',
      'gen_ai.tool.call.id': 'call_0',
      'gen_ai.tool.type': 'function',
    });
    // Never contents by default.
    for (const span of spans)
      for (const key of Object.keys(span.attributes))
        expect(key).not.toMatch(/messages|arguments|call\.result/);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('Lisbon');
  });

  it('wraps store operations in spans under the run, by backend and operation', async () => {
    const { spans } = await runToolTurn(false);
    const run = spans.find((span) => span.name === 'invoke_agent')!;
    const stores = spans.filter((span) => 'agent_memory.store' in span.attributes);
    expect(
      stores.every((span) => span.parentSpanContext?.spanId === run.spanContext().spanId),
    ).toBe(true);
    expect(stores.map((span) => span.name)).toEqual(
      expect.arrayContaining(['chat_memory.add', 'longterm_memory.save_many']),
    );
    expect(spans.find((span) => span.name === 'chat_memory.add')!.attributes).toMatchObject({
      'db.system.name': 'memory',
      'db.operation.name': 'add',
      'gen_ai.conversation.id': 'otel-c1',
    });
  });

  it('records contents only when captureContent is on', async () => {
    const { spans } = await runToolTurn(true);
    const model = spans.find((span) => span.name === 'chat stub')!;
    expect(String(model.attributes['gen_ai.input.messages'])).toContain('I live in Lisbon');
    expect(String(model.attributes['gen_ai.output.messages'])).toContain('remember');
    const tool = spans.find((span) => span.name === 'execute_tool remember')!;
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"key":"city","fact":"Lisbon"}');
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('"saved"');
  });

  it('marks a failed model call and the run it fails', async () => {
    llm.reset();
    llm.enqueue({ kind: 'json', status: 400, body: { error: { message: 'bad request' } } });
    harness = await bootAgent(
      {
        llm: { provider: 'openai', baseUrl: llmUrl, model: 'stub', retry: { maxRetries: 0 } },
        filters: [new OpenTelemetryFilter()],
      },
      [ChatMemoryModule.forRoot({ backend: 'memory' })],
    );
    exporter.reset();
    await expect(harness.agent.run({ conversationId: 'otel-c2', message: 'hi' })).rejects.toThrow();
    const spans = exporter.getFinishedSpans();
    const model = spans.find((span) => span.name === 'chat stub')!;
    const run = spans.find((span) => span.name === 'invoke_agent')!;
    expect(model.status.code).toBe(2);
    expect(model.attributes['error.type']).toBeDefined();
    expect(run.status.code).toBe(2);
    expect(run.attributes['agent_memory.outcome']).toBe('failed');
  });

  it('keeps error texts that quote arguments out of traces, unless content capture is on', async () => {
    for (const captureContent of [false, true]) {
      llm.reset();
      llm.enqueue(
        openAiCompletion(null, [{ id: 'call_0', name: 'remember', arguments: 'I live in Lisbon' }]),
        openAiCompletion(null, [{ id: 'call_1', name: 'no_such_tool', arguments: '{}' }]),
        openAiCompletion('Sorry.'),
      );
      harness = await bootAgent(
        {
          llm: { provider: 'openai', baseUrl: llmUrl, model: 'stub', retry: { maxRetries: 0 } },
          tools: [remember],
          filters: [new OpenTelemetryFilter({ captureContent })],
        },
        [ChatMemoryModule.forRoot({ backend: 'memory' })],
      );
      exporter.reset();
      await harness.agent.run({ conversationId: `otel-c3-${captureContent}`, message: 'hi' });
      const spans = exporter.getFinishedSpans();
      const badArguments = spans.find((span) => span.name === 'execute_tool remember')!;
      expect(badArguments.status.code).toBe(2);
      expect(badArguments.attributes['error.type']).toBe('tool_error');
      const traced = JSON.stringify(
        spans.map((span) => [span.status, span.events, span.attributes]),
      );
      if (captureContent) expect(traced).toContain('Lisbon');
      else expect(traced).not.toContain('Lisbon');
      // A tool the model made up: no name of its own in the span name (bounded cardinality).
      const unknown = spans.find((span) => span.attributes['gen_ai.tool.name'] === 'no_such_tool')!;
      expect(unknown.name).toBe('execute_tool');
      expect(unknown.attributes['agent_memory.tool.known']).toBe(false);
      await harness.close();
      harness = undefined;
    }
  });
});
