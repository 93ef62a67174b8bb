// examples/vision-agent.module.ts
import { createOpenAI } from '@ai-sdk/openai';
import { Injectable, Module } from '@nestjs/common';
import { AgentModule, AgentService, ChatMemoryModule } from 'nest-agent-memory';

@Injectable()
export class VisionService {
  constructor(private readonly agent: AgentService) {}

  /** One turn about a picture: the image is sent to the model and stored with the message. */
  async describe(conversationId: string, png: Buffer): Promise<string | null> {
    const result = await this.agent.run({
      conversationId,
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', data: png.toString('base64'), mediaType: 'image/png' },
        ],
      },
    });
    return typeof result.reply.content === 'string' ? result.reply.content : null;
  }
}

/** Any AI SDK model is the agent's model: here OpenAI's, or any server that speaks its API. */
@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: process.env.SQLITE_PATH ?? 'chat.sqlite' }),
    AgentModule.forRootAsync({
      useFactory: () => ({
        llm: {
          model: createOpenAI({
            baseURL: process.env.OPENAI_BASE_URL, // e.g. http://127.0.0.1:11434/v1 (Ollama)
            apiKey: process.env.OPENAI_API_KEY ?? '',
          }).chat(process.env.LLM_MODEL ?? 'gpt-4o-mini'),
          timeoutMs: 30_000,
        },
      }),
    }),
  ],
  providers: [VisionService],
  exports: [VisionService],
})
export class VisionAgentModule {}
