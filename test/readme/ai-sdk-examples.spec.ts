import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CHAT_MEMORY_STORE, type ChatMemoryStore } from 'nest-agent-memory';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

const llm = new FakeLlmServer();
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

beforeAll(async () => {
  // The examples read their endpoint from the environment when their modules load.
  process.env.OPENAI_BASE_URL = await llm.start();
  process.env.LLM_MODEL = 'stub';
  process.env.SQLITE_PATH = `${tempDir()}/vision.sqlite`;
});
afterAll(async () => {
  delete process.env.OPENAI_BASE_URL;
  delete process.env.LLM_MODEL;
  delete process.env.SQLITE_PATH;
  await llm.stop();
});

describe('README example: VisionAgentModule (an AI SDK model, an image in the message)', () => {
  it('sends the picture to the model and keeps it in the conversation', async () => {
    const { VisionAgentModule, VisionService } =
      await import('../../examples/vision-agent.module.js');
    const moduleRef = await Test.createTestingModule({ imports: [VisionAgentModule] }).compile();
    await moduleRef.init();
    try {
      llm.reset();
      llm.enqueue(openAiCompletion('A red pixel.'));
      expect(await moduleRef.get(VisionService).describe('v1', Buffer.from(PNG, 'base64'))).toBe(
        'A red pixel.',
      );
      const sent = (llm.requests[0]!.body.messages as Array<{ content: unknown }>).at(-1)!;
      expect(sent.content).toEqual([
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
      const stored = await moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).get('v1');
      expect(stored[0]!.content).toEqual([
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', data: PNG, mediaType: 'image/png' },
      ]);
    } finally {
      await moduleRef.close();
    }
  });
});

describe('README example: AiSdkChatController (streamText with agentMemoryMiddleware)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const { AiSdkChatModule } = await import('../../examples/ai-sdk-chat.controller.js');
    const moduleRef = await Test.createTestingModule({ imports: [AiSdkChatModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('streams the reply and remembers the conversation for the next request', async () => {
    const post = async (text: string) => {
      const response = await fetch(`${await app.getUrl()}/ai-sdk/c1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      return response.text();
    };
    llm.enqueue(openAiStream(['Hello ', 'Ada.']), openAiStream(['You are ', 'Ada.']));
    expect(await post('I am Ada.')).toBe('Hello Ada.');
    expect(await post('Who am I?')).toBe('You are Ada.');
    const second = llm.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
    expect(second.map((m) => `${m.role}:${String(m.content)}`)).toEqual([
      'system:Be brief.',
      'user:I am Ada.',
      'assistant:Hello Ada.',
      'user:Who am I?',
    ]);
    expect(await app.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version('c1')).toBe(4);
  });
});
