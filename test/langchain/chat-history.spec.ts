import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { AgentMemoryChatMessageHistory } from '../../src/modules/langchain/agent-memory-chat-history.js';
import { sessionBackends } from '../openai-agents/session-backends.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** One message of each kind LangChain has, with what each can carry. */
function sampleMessages(): BaseMessage[] {
  return [
    new SystemMessage({ id: 'm-system', content: 'You are terse.' }),
    new HumanMessage({
      id: 'm-human',
      name: 'ada',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
      additional_kwargs: { source: 'web' },
    }),
    new AIMessage({
      id: 'm-ai-call',
      content: '',
      tool_calls: [{ id: 'call-1', name: 'lookup', args: { q: 'pixel', n: 1 }, type: 'tool_call' }],
      response_metadata: { model_name: 'stub', finish_reason: 'tool_calls' },
      usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    }),
    new ToolMessage({
      id: 'm-tool',
      content: 'a red pixel',
      tool_call_id: 'call-1',
      name: 'lookup',
      status: 'success',
    }),
    new AIMessage({
      id: 'm-ai',
      content: 'A **red** pixel.',
      additional_kwargs: { refusal: null },
    }),
    new ChatMessage({ id: 'm-generic', role: 'developer', content: 'Answer in English.' }),
  ];
}

describe.each(sessionBackends())('AgentMemoryChatMessageHistory on $label', ({ options }) => {
  let app: TestingModule;
  let store: ChatMemoryStore;
  beforeAll(async () => {
    app = await Test.createTestingModule({
      imports: [ChatMemoryModule.forRoot(options)],
    }).compile();
    await app.init();
    store = app.get(CHAT_MEMORY_STORE);
  });
  afterAll(() => app.close());

  const history = () => new AgentMemoryChatMessageHistory(store, `lc-${randomUUID()}`);

  it('gives every kind of message back exactly as added, in one atomic append', async () => {
    const chat = history();
    const messages = sampleMessages();
    await chat.addMessages(messages);
    const back = await chat.getMessages();
    expect(back.map((message) => message.toDict())).toEqual(
      messages.map((message) => message.toDict()),
    );
    expect(back.map((message) => message.getType())).toEqual([
      'system',
      'human',
      'ai',
      'tool',
      'ai',
      'generic',
    ]);
    expect(await store.version(chat.conversationId)).toBe(6);
  });

  it("stores the package's native form beside it, for the agent, the API and the inspector", async () => {
    const chat = history();
    await chat.addMessages(sampleMessages());
    const stored = await store.get(chat.conversationId);
    expect(
      stored.map(({ id, role, content, toolCalls, toolCallId, name }) => ({
        id,
        role,
        content,
        toolCalls,
        toolCallId,
        name,
      })),
    ).toEqual(
      [
        { id: 'm-system', role: 'system', content: 'You are terse.' },
        {
          id: 'm-human',
          role: 'user',
          name: 'ada',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: PNG, mediaType: 'image/png' },
          ],
        },
        {
          id: 'm-ai-call',
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'call-1', name: 'lookup', arguments: '{"q":"pixel","n":1}' }],
        },
        {
          id: 'm-tool',
          role: 'tool',
          content: 'a red pixel',
          toolCallId: 'call-1',
          name: 'lookup',
        },
        { id: 'm-ai', role: 'assistant', content: 'A **red** pixel.' },
        { id: 'm-generic', role: 'system', content: 'Answer in English.' },
      ].map((message) => ({
        toolCalls: undefined,
        toolCallId: undefined,
        name: undefined,
        ...message,
      })),
    );
  });

  it('stores function messages and generic messages of any chat role', async () => {
    const chat = history();
    const messages = [
      new ChatMessage({ id: 'g-user', role: 'user', content: 'hi' }),
      new ChatMessage({ id: 'g-assistant', role: 'assistant', content: 'hello' }),
      new FunctionMessage({ id: 'f1', name: 'clock', content: '12:00' }),
      new AIMessage({
        id: 'empty-call-id',
        content: '',
        tool_calls: [{ id: '', name: 'clock', args: {}, type: 'tool_call' }],
      }),
    ];
    await chat.addMessages(messages);
    expect((await chat.getMessages()).map((m) => m.toDict())).toEqual(
      messages.map((m) => m.toDict()),
    );
    const stored = await store.get(chat.conversationId);
    expect(stored.map(({ role, toolCallId }) => [role, toolCallId])).toEqual([
      ['user', undefined],
      ['assistant', undefined],
      ['tool', 'clock'],
      ['assistant', undefined],
    ]);
    expect(stored[3]!.toolCalls).toEqual([{ id: 'call_0', name: 'clock', arguments: '{}' }]);
  });

  it('reads what the package itself wrote as LangChain messages', async () => {
    const chat = history();
    await store.add(chat.conversationId, [
      { id: 'u1', role: 'user', content: 'hello' },
      {
        id: 'a1',
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'clock', arguments: '{}' }],
      },
      { id: 't1', role: 'tool', content: '12:00', toolCallId: 'c1', name: 'clock' },
      { id: 'a2', role: 'assistant', content: 'It is noon.' },
    ]);
    const back = await chat.getMessages();
    expect(back.map((message) => [message.getType(), message.id, message.content])).toEqual([
      ['human', 'u1', 'hello'],
      ['ai', 'a1', ''],
      ['tool', 't1', '12:00'],
      ['ai', 'a2', 'It is noon.'],
    ]);
    expect((back[1] as AIMessage).tool_calls).toEqual([
      { id: 'c1', name: 'clock', args: {}, type: 'tool_call' },
    ]);
    expect((back[2] as ToolMessage).tool_call_id).toBe('c1');
  });

  it('stores a message with an id once, gives an id-less one the store id, and writes nothing of a bad batch', async () => {
    const chat = history();
    const hello = new HumanMessage({ id: 'same', content: 'hello' });
    await chat.addMessage(hello);
    await chat.addMessages([hello, new AIMessage('hi')]);
    const back = await chat.getMessages();
    expect(back.map((message) => message.content)).toEqual(['hello', 'hi']);
    expect(back[1]!.id).toEqual((await store.get(chat.conversationId))[1]!.id);
    await expect(
      chat.addMessages([new HumanMessage('lost'), new RemoveMessage({ id: 'same' })]),
    ).rejects.toThrow(/LangChain "remove" message/);
    await expect(
      chat.addMessages([
        new HumanMessage({ id: 'x', content: 'a' }),
        new HumanMessage({ id: 'x', content: 'b' }),
      ]),
    ).rejects.toThrow();
    expect(await store.version(chat.conversationId)).toBe(2);
    await chat.clear();
    expect(await chat.getMessages()).toEqual([]);
  });
});
