import { afterEach, describe, expect, it } from '@jest/globals';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const usage = {
  inputTokens: { total: 120, noCache: 120, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 30, text: 30, reasoning: 0 },
};

/** The id of the first user message in an extraction's quoted data. */
function userMessageId(options: LanguageModelV3CallOptions): string {
  const last = options.prompt.at(-1)!;
  const text = (last.content as Array<{ type: string; text?: string }>)
    .map((part) => part.text ?? '')
    .join('');
  const data = JSON.parse(text.replace(/^<data>\n|\n<\/data>$/g, '')) as {
    newMessages: Array<{ id: string; role: string }>;
  };
  return data.newMessages.find((message) => message.role === 'user')!.id;
}

/**
 * A formation model given as an AI SDK model (`formation.model: { model }`): the AI SDK's own
 * MockLanguageModelV3 answers each forced tool call — the structured output formation asks for —
 * as a provider would, and the memory forms through the package's AI SDK adapter.
 */
describe('formation with an AI SDK model (the AI SDK’s own MockLanguageModelV3)', () => {
  it('forms a memory from the forced tool calls, with the tokens the model reported', async () => {
    const formation = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const tool = options.toolChoice?.type === 'tool' ? options.toolChoice.toolName : 'no tool';
        const input =
          tool === 'record_memories'
            ? {
                memories: [
                  {
                    text: 'The user keeps bees',
                    kind: 'fact',
                    messageIds: [userMessageId(options)],
                  },
                ],
              }
            : { choices: [{ candidate: 0, op: 'ADD' }] };
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `c-${tool}`,
              toolName: tool,
              input: JSON.stringify(input),
            },
          ],
          usage,
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          warnings: [],
        };
      },
    });
    const chat = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: 'text', text: 'Bees, nice.' }],
        usage,
        finishReason: { unified: 'stop', raw: 'stop' },
        warnings: [],
      },
    });
    harness = await bootAgent(
      { llm: { model: chat }, formation: { model: { model: formation } } },
      [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
      ],
    );
    const run = await harness.agent.run({
      conversationId: 'bees',
      entityId: 'ada',
      message: 'I keep bees on the roof.',
    });
    const memories = new FormedMemories(harness.moduleRef.get(LongtermMemoryService));
    for (let i = 0; i < 200 && (await memories.jobs('ada', 5)).length === 0; i += 1)
      await sleep(25);
    const [job] = await memories.jobs('ada', 5);
    expect(job).toMatchObject({
      runId: run.runId,
      operations: [{ candidate: 0, op: 'ADD' }],
      usage: { promptTokens: 240, completionTokens: 60 },
    });
    expect((await memories.list('ada', { limit: 5 })).memories).toMatchObject([
      {
        text: 'The user keeps bees',
        sources: [{ conversationId: 'bees', runId: run.runId, messageIds: [run.messages[0]!.id] }],
      },
    ]);
    // Each step a forced call of its tool, with the tool's JSON Schema, the data quoted.
    expect(
      formation.doGenerateCalls.map((call) => [
        call.toolChoice,
        call.tools?.map((tool) => tool.name),
      ]),
    ).toEqual([
      [{ type: 'tool', toolName: 'record_memories' }, ['record_memories']],
      [{ type: 'tool', toolName: 'choose_operations' }, ['choose_operations']],
    ]);
    expect(JSON.stringify(formation.doGenerateCalls[0]!.prompt.at(-1))).toContain('<data>');
  });
});
