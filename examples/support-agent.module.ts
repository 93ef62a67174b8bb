// examples/support-agent.module.ts
import { Inject, Injectable, Module } from '@nestjs/common';
import {
  AgentModule,
  type AgentRunResult,
  AgentService,
  ChatMemoryModule,
  MEMORY_PROVIDER,
  type MemoryProvider,
  MemoryProviderModule,
} from 'nest-agent-memory';

/** Answers customers; each call is one atomic turn of their conversation. */
@Injectable()
export class SupportService {
  constructor(@Inject(AgentService) private readonly agent: AgentService) {}

  ask(customerId: string, question: string): Promise<AgentRunResult> {
    return this.agent.run({ conversationId: `support:${customerId}`, message: question });
  }

  /** Queued instead: resolves with the run id; poll agent.getRun(runId). */
  askLater(customerId: string, question: string): Promise<{ runId: string }> {
    return this.agent.submit({ conversationId: `support:${customerId}`, message: question });
  }
}

@Module({
  imports: [
    // Storage: the full history, always.
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: ':memory:' }),
    // Policy: what of it the model sees — here, as much as fits 4,000 tokens, by the safe-window rules.
    MemoryProviderModule.forRoot({ policy: 'token-budget', maxTokens: 4_000 }),
    AgentModule.forRootAsync({
      inject: [MEMORY_PROVIDER],
      useFactory: (memory: MemoryProvider) => ({
        llm: { provider: 'echo' }, // or { provider: 'openai', model: 'gpt-4o-mini' }
        systemPrompt: 'You are a patient support agent.',
        memory, // or 'default', { window: 20 }, { store }, { store, window: 20 }, false
        conflictPolicy: 'retry', // a turn that lost the race reruns on the new history
        queue: { driver: 'inline' }, // or { driver: 'bull', redisUrl: 'redis://…' }
      }),
    }),
  ],
  providers: [SupportService],
})
export class SupportAgentModule {}
