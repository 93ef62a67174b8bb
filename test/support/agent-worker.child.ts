/**
 * A queue worker in its own OS process, for the stalled-job test. argv: <queue name> <prefix>.
 * Its model calls the `side_effect` tool first, then hangs in its second call (printing `stuck`),
 * so the parent can SIGKILL it mid-run, after the tool step was recorded.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
} from '../../src/modules/llm/interfaces/llm.interface.js';
import { Module } from '@nestjs/common';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from './test-databases.js';

const [name, prefix] = process.argv.slice(2) as [string, string];
const counter = new Redis(TEST_REDIS_URL);

class HangingLlm implements LlmAdapter {
  async chat(request: LlmRequest): Promise<LlmResponse> {
    if (!request.messages.some((m) => m.role === 'tool')) {
      return {
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'fx', name: 'side_effect', arguments: '{}' }],
        },
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      };
    }
    process.stdout.write('\nstuck\n');
    return new Promise<never>(() => undefined);
  }
  stream(request: LlmRequest): Promise<LlmResponse> {
    return this.chat(request);
  }
}

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'postgres', url: TEST_POSTGRES_URL }),
    AgentModule.forRoot({
      llm: new HangingLlm(),
      tools: [
        {
          name: 'side_effect',
          description: 'counts',
          parameters: { type: 'object' },
          handler: () => counter.incr(`${prefix}:side-effects`),
        },
      ],
      runs: { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `${prefix}:runs:` },
      queue: {
        driver: 'bull',
        redisUrl: TEST_REDIS_URL,
        prefix,
        name,
        leaseMs: 1_500,
        lockDurationMs: 1_500,
        backoffMs: 20,
      },
    }),
  ],
})
class WorkerModule {}

await NestFactory.createApplicationContext(WorkerModule, { logger: ['error'] });
process.stdout.write('\nready\n');
