import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  LangchainChatModule,
  LangchainChatService,
} from '../../examples/langchain-history.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { FakeLlmServer, uniqueOpenAiAnswer } from '../support/fake-llm-server.js';
import { TEST_POSTGRES_URL, tempDir } from '../support/test-databases.js';
import { waitFor } from '../support/wait-for.js';

const URIS: Array<[string, () => string]> = [
  ['SQLite', () => `sqlite:${join(tempDir('langchain-'), 'chat.sqlite')}`],
  ['PostgreSQL', () => TEST_POSTGRES_URL],
];

describe.each(URIS)('example: RunnableWithMessageHistory on %s', (_label, uri) => {
  const llm = new FakeLlmServer();
  const saved = { ...process.env };
  let app: TestingModule;

  beforeAll(async () => {
    Object.assign(process.env, {
      OPENAI_BASE_URL: `${await llm.start()}/v1`,
      OPENAI_API_KEY: 'test',
      LLM_MODEL: 'stub',
      CHAT_MEMORY_URI: uri(),
    });
    app = await Test.createTestingModule({ imports: [LangchainChatModule] }).compile();
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    await llm.stop();
    process.env = saved;
  });

  it('sends the stored history with each question and appends each turn', async () => {
    const chat = app.get(LangchainChatService);
    const conversation = `lc-example-${randomUUID()}`;
    llm.enqueue(uniqueOpenAiAnswer('Hello Ada.'), uniqueOpenAiAnswer('You are Ada.'));
    expect(await chat.ask(conversation, 'I am Ada.')).toBe('Hello Ada.');
    expect(await chat.ask(conversation, 'Who am I?')).toBe('You are Ada.');
    const sent = llm.requests.at(-1)!.body['messages'] as Array<{ role: string; content: string }>;
    expect(sent.map(({ role, content }) => [role, content])).toEqual([
      ['system', 'You are a helpful assistant. Be brief.'],
      ['user', 'I am Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Who am I?'],
    ]);
    // The same conversation, as the package's agent and HTTP API read it. LangChain appends the
    // turn from a listener that runs after invoke resolves.
    const store = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const stored = await waitFor(
      () => store.get(conversation),
      (messages) => messages.length === 4,
      5_000,
      'the second turn to be appended',
    );
    expect(stored.map(({ role, content }) => [role, content])).toEqual([
      ['user', 'I am Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Who am I?'],
      ['assistant', 'You are Ada.'],
    ]);
  });
});
