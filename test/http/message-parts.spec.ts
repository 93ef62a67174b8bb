import { afterAll, beforeAll, afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
  WorkingMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';

const llm = new FakeLlmServer();
let app: INestApplication;
let baseUrl: string;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

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
afterEach(() => llm.reset());

const post = (path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const messagesOf = async (conversationId: string) =>
  (
    (await (await fetch(`${baseUrl}/conversations/${conversationId}/messages`)).json()) as {
      messages: Array<{ role: string; content: unknown }>;
    }
  ).messages;

describe('messages with parts over HTTP', () => {
  it('POST …/turns takes parts, sends the image to the model, and stores it as sent', async () => {
    llm.enqueue(openAiCompletion('A red pixel.'));
    const parts = [
      { type: 'text', text: 'What is this?' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
    ];
    const response = await post('/conversations/parts-1/turns', { message: parts });
    expect(response.status).toBe(201);
    expect(llm.requests[0]!.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
    expect(await messagesOf('parts-1')).toMatchObject([
      { role: 'user', content: parts },
      { role: 'assistant', content: 'A red pixel.' },
    ]);
  });

  it('refuses a malformed part with 400 naming it, and stores nothing', async () => {
    for (const message of [
      [{ type: 'image', data: 'not base64!', mediaType: 'image/png' }],
      [{ type: 'reasoning', text: 'users do not reason here' }],
      [],
      42,
    ]) {
      const response = await post('/conversations/parts-2/turns', { message });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { message: string };
      expect(body.message).toMatch(/message/);
    }
    const bad = await post('/conversations/parts-2/turns', {
      message: [{ type: 'file', url: 'ftp://example.com/a.pdf', mediaType: 'application/pdf' }],
    });
    expect(((await bad.json()) as { message: string }).message).toContain('content[0].url');
    expect(await messagesOf('parts-2')).toEqual([]);
    expect(llm.requests).toHaveLength(0);
  });

  it('the chat route stores a useChat file attachment as an image part', async () => {
    llm.enqueue(openAiStream(['A ', 'pixel.']));
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${baseUrl}/conversations/parts-3/chat`,
    });
    const stream = await transport.sendMessages({
      chatId: 'parts-3',
      messages: [
        {
          id: 'u1',
          role: 'user',
          parts: [
            { type: 'text', text: 'And this?' },
            {
              type: 'file',
              mediaType: 'image/png',
              filename: 'pixel.png',
              url: `data:image/png;base64,${PNG}`,
            },
          ],
        },
      ],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    let text = '';
    for await (const message of readUIMessageStream<UIMessage>({ stream }))
      text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(text).toBe('A pixel.');
    expect(await messagesOf('parts-3')).toMatchObject([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
      },
      { role: 'assistant', content: 'A pixel.' },
    ]);
  });
});
