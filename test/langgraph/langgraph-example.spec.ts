import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { join } from 'node:path';
import {
  LanggraphAgentModule,
  LanggraphAgentService,
} from '../../examples/langgraph-agent.module.js';
import { FakeLlmServer, uniqueOpenAiAnswer } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';

describe('example: LanggraphAgentModule (threads in the checkpointer, facts in long-term memory)', () => {
  const llm = new FakeLlmServer();
  const saved = { ...process.env };
  beforeAll(async () => {
    Object.assign(process.env, {
      OPENAI_BASE_URL: `${await llm.start()}/v1`,
      OPENAI_API_KEY: 'test',
      LLM_MODEL: 'stub',
      MEMORY_URI: `sqlite:${join(tempDir('langgraph-example-'), 'memory.sqlite')}`,
    });
  });
  afterAll(async () => {
    await llm.stop();
    process.env = saved;
  });

  async function withApp<T>(use: (agent: LanggraphAgentService) => Promise<T>): Promise<T> {
    const app = await Test.createTestingModule({ imports: [LanggraphAgentModule] }).compile();
    await app.init();
    try {
      return await use(app.get(LanggraphAgentService));
    } finally {
      await app.close();
    }
  }

  it("recalls a user's facts in another thread, and continues a thread after a restart", async () => {
    llm.enqueue(
      uniqueOpenAiAnswer(null, [
        { id: 'c1', name: 'remember', arguments: '{"fact":"Ada likes tea"}' },
      ]),
      uniqueOpenAiAnswer('Noted.'),
      uniqueOpenAiAnswer(null, [{ id: 'c2', name: 'recall', arguments: '{"query":"tea"}' }]),
      uniqueOpenAiAnswer('You like tea.'),
    );
    await withApp(async (agent) => {
      expect(await agent.ask('ada', 'thread-1', 'I like tea')).toBe('Noted.');
      expect(await agent.ask('ada', 'thread-2', 'What do I like?')).toBe('You like tea.');
    });
    const recallResult = (
      llm.requests[3]!.body['messages'] as Array<{ role: string; content: string }>
    ).at(-1)!;
    expect(recallResult).toMatchObject({ role: 'tool', content: 'Ada likes tea' });

    llm.enqueue(uniqueOpenAiAnswer('Tea, as you said.'));
    await withApp(async (agent) => {
      expect(await agent.ask('ada', 'thread-1', 'Remind me?')).toBe('Tea, as you said.');
    });
    const sent = llm.requests.at(-1)!.body['messages'] as Array<{ role: string }>;
    expect(sent.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });
});
