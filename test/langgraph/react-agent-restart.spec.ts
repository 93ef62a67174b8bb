import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTypeScriptChild } from '../support/child-process.js';
import { FakeLlmServer, uniqueOpenAiAnswer } from '../support/fake-llm-server.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

const CHILD = fileURLToPath(new URL('./react-agent.child.ts', import.meta.url));

/** The checkpointer's and the store's backends: each persists across the restart. */
const BACKENDS: Array<[string, () => string]> = [
  ['SQLite', () => `sqlite:${join(tempDir('langgraph-agent-'), 'graph.sqlite')}`],
  ['PostgreSQL', () => TEST_POSTGRES_URL],
  ['MariaDB', () => TEST_MYSQL_URL],
  ['Redis', () => TEST_REDIS_URL],
];

async function turn(modelUrl: string, uri: string, threadId: string, message: string) {
  const output = await startTypeScriptChild(CHILD, [modelUrl, uri, uri, threadId, message]).exited;
  return JSON.parse(output.trim().split('\n').at(-1)!) as {
    reply: string;
    tools: string[];
    count: number;
  };
}

describe.each(BACKENDS)(
  'a LangGraph ReAct agent on %s, across a process restart',
  (_label, uri) => {
    const llm = new FakeLlmServer();
    let modelUrl: string;
    beforeAll(async () => {
      modelUrl = `${await llm.start()}/v1`;
    });
    afterAll(() => llm.stop());

    it('keeps the thread in the checkpointer and the facts in the store', async () => {
      const target = uri();
      const threadId = `thread-${randomUUID()}`;
      llm.enqueue(
        uniqueOpenAiAnswer(null, [
          { id: 'call-1', name: 'remember', arguments: '{"fact":"my favourite colour is green"}' },
        ]),
        uniqueOpenAiAnswer('Noted.'),
      );
      const first = await turn(
        modelUrl,
        target,
        threadId,
        'Remember: my favourite colour is green',
      );
      expect(first).toEqual({
        reply: 'Noted.',
        tools: ['saved: my favourite colour is green'],
        count: 4,
      });

      // A new process: the thread comes back from the checkpointer, the fact from the store.
      llm.enqueue(
        uniqueOpenAiAnswer(null, [
          { id: 'call-2', name: 'recall', arguments: '{"query":"favourite colour"}' },
        ]),
        uniqueOpenAiAnswer('Green.'),
      );
      const second = await turn(modelUrl, target, threadId, 'What is my favourite colour?');
      // The thread's whole history: the first process's tool result, then this one's recall.
      expect(second).toEqual({
        reply: 'Green.',
        tools: ['saved: my favourite colour is green', 'my favourite colour is green'],
        count: 8,
      });
      const sent = llm.requests.at(-1)!.body['messages'] as Array<{
        role: string;
        content: unknown;
      }>;
      expect(sent.map((m) => m.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
        'tool',
      ]);
      expect(sent[0]!.content).toBe('Remember: my favourite colour is green');
      expect(sent[3]!.content).toBe('Noted.');
    }, 90_000);
  },
);
