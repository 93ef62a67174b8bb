import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type {
  KernelToolDefinition,
  ToolContext,
} from '../../src/modules/kernel/interfaces/kernel-tool.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import {
  FakeLlmServer,
  type RecordedRequest,
  openAiCompletion,
} from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

/**
 * Providers such as Kimi served by vLLM number tool calls per response (`search:0` in every round),
 * so a call id is unique only within one assistant message. A run whose rounds reuse an id must run
 * each call, give each its own idempotency key, record and replay each step, and send the model a
 * history in which every result follows its own call.
 */
const server = new FakeLlmServer();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await server.start();
});
afterAll(() => server.stop());

let harness: AgentHarness | undefined;
afterEach(async () => {
  server.reset();
  await harness?.close();
  harness = undefined;
});

const sqlitePath = join(tempDir(), 'reused-ids.sqlite');
const searchCall = (query: string) => ({
  id: 'search:0',
  name: 'search',
  arguments: JSON.stringify({ q: query }),
});

function searchTool(keys: string[]): KernelToolDefinition {
  return {
    name: 'search',
    description: 'Searches',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    handler: ({ q }, context: ToolContext) => {
      keys.push(context.idempotencyKey);
      return { found: `results for ${String(q)}` };
    },
  };
}

async function boot(keys: string[]): Promise<AgentHarness> {
  return bootAgent(
    {
      llm: {
        provider: 'openai',
        model: 'kimi-test',
        baseUrl,
        apiKey: 'sk-test',
        retry: { maxRetries: 0 },
      },
      tools: [searchTool(keys)],
      runs: { backend: 'sqlite', path: sqlitePath },
    },
    [ChatMemoryModule.forRoot({ backend: 'sqlite', path: sqlitePath })],
  );
}

/** The tool messages the model was sent, each with the arguments of the call it follows. */
function pairsSent(request: RecordedRequest): Array<[string, string]> {
  const messages = request.body.messages as Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; function: { arguments: string } }>;
    tool_call_id?: string;
  }>;
  const pairs: Array<[string, string]> = [];
  messages.forEach((message, i) => {
    if (message.role !== 'tool') return;
    const call = messages[i - 1]!.tool_calls ?? messages[i - 2]?.tool_calls;
    const args = call?.find((c) => c.id === message.tool_call_id)?.function.arguments ?? '?';
    pairs.push([args, message.content ?? '']);
  });
  return pairs;
}

describe('a run whose rounds reuse tool-call ids (real OpenAI adapter)', () => {
  it('runs every call once, with a key per round, and pairs each result with its own call', async () => {
    const keys: string[] = [];
    server.enqueue(
      openAiCompletion(null, [searchCall('cats')]),
      openAiCompletion(null, [searchCall('dogs')]),
      openAiCompletion('Cats and dogs.'),
    );
    harness = await boot(keys);
    const conversationId = `reused-${Date.now()}`;
    const result = await harness.agent.run({ conversationId, message: 'compare', runId: 'r1' });

    expect(keys).toEqual(['r1:0:search:0', 'r1:1:search:0']);
    expect(result.toolCalls.map((c) => [c.arguments, c.result])).toEqual([
      ['{"q":"cats"}', { found: 'results for cats' }],
      ['{"q":"dogs"}', { found: 'results for dogs' }],
    ]);
    // The third model call saw each result right after its own call.
    expect(pairsSent(server.requests[2]!)).toEqual([
      ['{"q":"cats"}', '{"found":"results for cats"}'],
      ['{"q":"dogs"}', '{"found":"results for dogs"}'],
    ]);

    // The next turn reuses the same id again: the whole history still pairs correctly.
    server.enqueue(openAiCompletion(null, [searchCall('birds')]), openAiCompletion('Birds.'));
    await harness.agent.run({ conversationId, message: 'and birds?', runId: 'r2' });
    expect(pairsSent(server.requests[4]!)).toEqual([
      ['{"q":"cats"}', '{"found":"results for cats"}'],
      ['{"q":"dogs"}', '{"found":"results for dogs"}'],
      ['{"q":"birds"}', '{"found":"results for birds"}'],
    ]);
    const store = harness.moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    expect((await store.get(conversationId)).filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it('replays each round’s step on retry instead of taking the first round’s for the second', async () => {
    const keys: string[] = [];
    server.enqueue(
      openAiCompletion(null, [searchCall('cats')]),
      openAiCompletion(null, [searchCall('dogs')]),
      { kind: 'json', status: 400, body: { error: { message: 'bad request' } } },
    );
    harness = await boot(keys);
    const conversationId = `reused-retry-${Date.now()}`;
    await rejectionOf(harness.agent.run({ conversationId, message: 'compare', runId: 'r3' }));
    expect(keys).toEqual(['r3:0:search:0', 'r3:1:search:0']);

    server.enqueue(openAiCompletion('Cats and dogs.'));
    const result = await harness.agent.run({ conversationId, message: 'compare', runId: 'r3' });
    // Both tool steps came from the run cache: no tool ran again, each round kept its own result.
    expect(keys).toHaveLength(2);
    expect(result.toolCalls.map((c) => c.result)).toEqual([
      { found: 'results for cats' },
      { found: 'results for dogs' },
    ]);
    expect(pairsSent(server.requests.at(-1)!)).toEqual([
      ['{"q":"cats"}', '{"found":"results for cats"}'],
      ['{"q":"dogs"}', '{"found":"results for dogs"}'],
    ]);
  });

  it('runs one of two calls sharing an id in one message and tells the model about the other', async () => {
    const keys: string[] = [];
    server.enqueue(
      openAiCompletion(null, [searchCall('cats'), searchCall('dogs')]),
      openAiCompletion('Done.'),
    );
    harness = await boot(keys);
    const result = await harness.agent.run({
      conversationId: `dup-${Date.now()}`,
      message: 'both',
      runId: 'r4',
    });
    expect(keys).toEqual(['r4:0:search:0']);
    expect(result.toolCalls[0]!.result).toEqual({ found: 'results for cats' });
    expect(result.toolCalls[1]!.error).toMatch(
      /tool call id "search:0" is used by an earlier call/,
    );
  });
});
