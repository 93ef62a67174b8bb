import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  CHAT_MEMORY_STORE,
  type ChatMemoryStore,
  ChatMemoryModule,
  LongtermMemoryModule,
  WorkingMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';
import { FakeLlmServer, openAiStream } from '../support/fake-llm-server.js';

const llm = new FakeLlmServer();
let app: INestApplication;
let baseUrl: string;

beforeAll(async () => {
  const llmUrl = await llm.start();
  const moduleRef = await Test.createTestingModule({
    imports: [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://' }),
      WorkingMemoryModule.forRoot({ backend: 'memory' }),
      AgentModule.forRoot({
        llm: { provider: 'openai', baseUrl: llmUrl, model: 'stub', retry: { maxRetries: 0 } },
      }),
      AgentMemoryHttpModule.forRoot(),
    ],
  }).compile();
  app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new AgentMemoryExceptionFilter());
  await app.listen(0, '127.0.0.1');
  baseUrl = await app.getUrl();
});
afterAll(async () => {
  await app?.close();
  await llm.stop();
});

/**
 * The AI SDK's own client: `DefaultChatTransport` posts what `useChat` posts (trimmed to the newest
 * message, as the README advises, unless `trimmed: false`) and `readUIMessageStream` assembles the
 * assistant's UIMessage; stream errors go to `onError`.
 */
async function chat(
  conversationId: string,
  text: string,
  options: {
    body?: object;
    headers?: Record<string, string>;
    trimmed?: boolean;
    onError?: (error: unknown) => void;
  } = {},
): Promise<UIMessage | undefined> {
  const transport = new DefaultChatTransport<UIMessage>({
    api: `${baseUrl}/conversations/${conversationId}/chat`,
    body: options.body ?? {},
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.trimmed === false
      ? {}
      : {
          prepareSendMessagesRequest: ({ messages, body: extra }) => ({
            body: { ...extra, message: messages.at(-1) },
          }),
        }),
  });
  const stream = await transport.sendMessages({
    chatId: conversationId,
    messages: [{ id: `u-${Date.now()}`, role: 'user', parts: [{ type: 'text', text }] }],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream<UIMessage>({
    stream,
    ...(options.onError ? { onError: options.onError } : {}),
  }))
    last = message;
  return last;
}

describe('POST /conversations/:id/chat with the AI SDK client', () => {
  it('assembles text and each tool part as the agent stored them', async () => {
    llm.reset();
    llm.enqueue(
      openAiStream(
        ['Let me note that. '],
        [{ id: 'call_0', name: 'memory_save', arguments: '{"key":"city","value":"Lisbon"}' }],
      ),
      openAiStream([], [{ id: 'call_0', name: 'memory_get', arguments: '{"key":"city"}' }]),
      openAiStream(['You live ', 'in Lisbon.']),
    );
    const message = (await chat('ui-1', 'I live in Lisbon', { body: { entityId: 'u1' } }))!;

    const store = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const stored = await store.get('ui-1');
    const reply = stored.at(-1)!;
    const texts = message.parts.filter((part) => part.type === 'text');
    expect(texts.map((part) => part.text).join('')).toBe(
      stored
        .filter((m) => m.role === 'assistant' && m.content)
        .map((m) => m.content)
        .join(''),
    );
    expect(texts.at(-1)!.text).toBe(reply.content);

    const tools = message.parts.filter((part) => part.type === 'dynamic-tool');
    const storedCalls = stored.flatMap((m) => m.toolCalls ?? []);
    const storedResults = stored.filter((m) => m.role === 'tool');
    // The message has the id its first assistant message is stored under (`runId:1`), and the
    // run's record holds each call's result.
    expect(message.id).toBe(stored.find((m) => m.role === 'assistant')!.id);
    const runId = message.id.replace(/:1$/, '');
    const run = (await (await fetch(`${baseUrl}/runs/${runId}`)).json()) as {
      result: { toolCalls: Array<{ result: unknown }> };
    };
    expect(tools).toHaveLength(2);
    tools.forEach((part, i) => {
      const result = run.result.toolCalls[i]!.result;
      expect(part).toMatchObject({
        toolName: storedCalls[i]!.name,
        input: JSON.parse(storedCalls[i]!.arguments),
        state: 'output-available',
        output: result,
      });
      expect(storedResults[i]!.content).toBe(
        typeof result === 'string' ? result : JSON.stringify(result),
      );
    });
    expect(tools.map((part) => part.type === 'dynamic-tool' && part.output)).toEqual([
      { saved: 'city' },
      'Lisbon',
    ]);
    // Two rounds reused `call_0`: the parts stay apart.
    expect(new Set(tools.map((part) => part.toolCallId)).size).toBe(2);
    expect(message.parts.filter((part) => part.type === 'step-start')).toHaveLength(3);

    // The run's steps, as the inspector shows them: model → tool → model → tool → model.
    const steps = (await (await fetch(`${baseUrl}/runs/${runId}/steps`)).json()) as {
      conversationId: string;
      steps: Array<Record<string, unknown>>;
      longterm: unknown;
    };
    expect(steps.conversationId).toBe('ui-1');
    expect(steps.steps.map((step) => [step.type, step.round, step.replayed])).toEqual([
      ['model', 0, false],
      ['tool', 0, false],
      ['model', 1, false],
      ['tool', 1, false],
      ['model', 2, false],
    ]);
    expect(steps.steps[1]).toMatchObject({
      call: { id: 'call_0', name: 'memory_save' },
      result: { saved: 'city' },
      staged: [{ key: 'city', value: 'Lisbon' }],
    });
    expect(steps.steps[3]).toMatchObject({ call: { name: 'memory_get' }, result: 'Lisbon' });
    expect(steps.steps[4]).toMatchObject({ content: 'You live in Lisbon.', toolCalls: [] });
    expect(steps.longterm).toEqual({ entityId: 'u1', seq: 1, flushed: ['city'], refused: [] });
  });

  it('replays a committed turn for a repeated Idempotency-Key, calling the model once', async () => {
    llm.reset();
    llm.enqueue(openAiStream(['Only ', 'once.']));
    const headers = { 'Idempotency-Key': 'ui-key-1' };
    const first = (await chat('ui-2', 'hi', { headers, trimmed: false }))!;
    const again = (await chat('ui-2', 'hi', { headers, trimmed: false }))!;
    expect(llm.requests).toHaveLength(1);
    const text = (m: UIMessage) =>
      m.parts
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join('');
    expect([text(first), text(again)]).toEqual(['Only once.', 'Only once.']);
  });

  it('ends a failed turn with the protocol error chunk and stores nothing', async () => {
    llm.reset();
    llm.enqueue({ kind: 'json', status: 500, body: { error: 'down' } });
    const errors: unknown[] = [];
    await chat('ui-3', 'hi', { trimmed: false, onError: (error) => errors.push(error) });
    expect(String(errors[0])).toContain('500');
    expect(await app.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version('ui-3')).toBe(0);
  });

  it('refuses a body whose newest message is not a user message with text (400)', async () => {
    const response = await fetch(`${baseUrl}/conversations/ui-4/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'assistant', parts: [] }] }),
    });
    expect(response.status).toBe(400);
  });
});
