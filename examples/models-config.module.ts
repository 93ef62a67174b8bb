// examples/models-config.module.ts
import { createOpenAI } from '@ai-sdk/openai';
import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { AgentModule, ChatMemoryModule } from 'nest-agent-memory';

/** The model built from configuration, with the adapter's call settings beside it. */
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    ChatMemoryModule.forRoot({ backend: 'memory' }),
    AgentModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        llm: {
          model: createOpenAI({
            baseURL: config.get<string>('OPENAI_BASE_URL'),
            apiKey: config.getOrThrow<string>('OPENAI_API_KEY'),
          }).chat(config.get<string>('LLM_MODEL') ?? 'gpt-4o-mini'),
          timeoutMs: 30_000,
          retry: { maxRetries: 3 },
        },
      }),
    }),
  ],
})
export class ModelsConfigModule {}
