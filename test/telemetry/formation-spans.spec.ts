import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChatMemoryModule,
  LongtermMemoryModule,
  type MemoryFormationModel,
  PlainStatementsFormationModel,
} from 'nest-agent-memory';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let harness: AgentHarness | undefined;

beforeAll(() => {
  provider.register();
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  exporter.reset();
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

/** The demo model, saying each step used tokens (as an LLM's would). */
class CountedModel implements MemoryFormationModel {
  readonly id = 'counted';
  private readonly inner = new PlainStatementsFormationModel();
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    return {
      ...(await this.inner.extract(input)),
      usage: { promptTokens: 7, completionTokens: 3 },
    };
  }
  async choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    return { ...(await this.inner.choose(input)), usage: { promptTokens: 5, completionTokens: 2 } };
  }
}

/** The formation spans once `count` have ended (polled, at most 10 s). */
async function formationSpans(count: number): Promise<ReadableSpan[]> {
  let found: ReadableSpan[] = [];
  for (let i = 0; i < 200 && found.length < count; i += 1) {
    found = exporter.getFinishedSpans().filter((span) => span.name === 'memory_formation');
    if (found.length < count) await sleep(50);
  }
  return found;
}

describe('the span of a formation job', () => {
  it('says what the job did — outcome, lag, operations by type, tokens — and no memory text', async () => {
    harness = await bootAgent(
      {
        llm: new ScriptedLlm([{ content: 'Ok.' }, { content: 'Ok.' }]),
        formation: { model: new CountedModel() },
      },
      [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
      ],
    );
    const first = await harness.agent.run({
      conversationId: 'fs-1',
      entityId: 'acme/ada',
      message: 'I live in Lisbon. I like tea.',
    });
    const [span] = await formationSpans(1);
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'form_memories',
      'agent_memory.run_id': first.runId,
      'agent_memory.entity_id': 'acme/ada',
      'gen_ai.conversation.id': 'fs-1',
      'agent_memory.formation.outcome': 'written',
      'agent_memory.formation.lag_ms': expect.any(Number),
      'agent_memory.formation.operations.add': 2,
      'agent_memory.formation.operations.update': 0,
      'agent_memory.formation.operations.invalidate': 0,
      'agent_memory.formation.operations.none': 0,
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(span!.attributes['agent_memory.formation.lag_ms']).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(span!.attributes)).not.toContain('Lisbon');
    // A change: an update, counted as such.
    await harness.agent.run({
      conversationId: 'fs-1',
      entityId: 'acme/ada',
      message: 'I moved to Porto.',
    });
    const spans = await formationSpans(2);
    expect(spans[1]!.attributes).toMatchObject({
      'agent_memory.formation.outcome': 'written',
      'agent_memory.formation.operations.update': 1,
      'agent_memory.formation.operations.add': 0,
    });
  });
});
