import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  FakeLlmServer,
  type RecordedRequest,
  openAiCompletion,
} from '../support/fake-llm-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/locomo-mini/', import.meta.url));

/** The system and user texts of a chat request. */
function textsOf(request: RecordedRequest): { system: string; user: string } {
  const messages = request.body['messages'] as Array<{ role: string; content: string }>;
  return {
    system: messages.find((m) => m.role === 'system')?.content ?? '',
    user: messages.find((m) => m.role === 'user')?.content ?? '',
  };
}

/**
 * `npm run bench:locomo-qa` end to end against a scripted model on a made-up five-conversation
 * LoCoMo: the sessions are formed into memories, each question is answered from the memories
 * recalled for it and graded by the judge, and the table gives J per category. The scripted model
 * answers "where does … live" from the memories it is given and nothing else; its judge compares
 * the answer with the gold one.
 */
describe('bench:locomo-qa (a scripted model)', () => {
  const llm = new FakeLlmServer();
  let url = '';
  beforeAll(async () => {
    url = await llm.start();
    llm.fallback = (request) => {
      const { system, user } = textsOf(request);
      if (system.startsWith('You grade')) {
        const { gold, answer } = JSON.parse(user) as { gold: string; answer: string };
        return openAiCompletion(gold.toLowerCase() === answer.toLowerCase() ? 'CORRECT' : 'WRONG');
      }
      const data = JSON.parse(user.replace(/^<data>\n|\n<\/data>$/g, '')) as {
        question: string;
        memories: Array<{ text: string }>;
      };
      const city = data.memories.map((m) => /moved to (\w+)/.exec(m.text)?.[1]).find(Boolean);
      return openAiCompletion(/live/.test(data.question) && city ? city : 'unknown');
    };
  });
  afterAll(() => llm.stop());

  it('forms the memories, answers from what it recalls, and gives J per category', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/locomo-qa.bench.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        LOCOMO_DIR: FIXTURE,
        OPENAI_BASE_URL: url,
        OPENAI_API_KEY: 'test',
        LLM_MODEL: 'stub',
        LLM_MAX_RETRIES: '0',
        BENCH_QUESTIONS: '6',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, output }).toEqual({ code: 0, output: expect.any(String) });
    // Three conversations' two questions: where each lives (single-hop, right from the memory the
    // question recalls), and their weekends (multi-hop here, which the scripted model cannot say).
    expect(output).toContain('6 questions, 12 model calls');
    expect(output).toContain('| 1 multi-hop | 3 | 0.0 % |');
    expect(output).toContain('| 4 single-hop | 3 | 100.0 % |');
    expect(output).toContain('| all | 6 | 50.0 % |');
    expect(llm.requests).toHaveLength(12);
  }, 120_000);
});
