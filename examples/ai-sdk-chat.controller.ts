// examples/ai-sdk-chat.controller.ts
import { createOpenAI } from '@ai-sdk/openai';
import { Body, Controller, Module, Param, Post, Res } from '@nestjs/common';
import { streamText, wrapLanguageModel } from 'ai';
import type { ServerResponse } from 'node:http';
import { ChatMemoryModule, type ChatMemoryStore, InjectChatMemoryStore } from 'nest-agent-memory';
import { agentMemoryMiddleware } from 'nest-agent-memory/ai-sdk';

const openai = createOpenAI({
  baseURL: process.env.OPENAI_BASE_URL,
  apiKey: process.env.OPENAI_API_KEY ?? '',
});

/** Your own streamText route; the middleware gives it the conversation's memory. */
@Controller('ai-sdk')
export class AiSdkChatController {
  constructor(@InjectChatMemoryStore() private readonly store: ChatMemoryStore) {}

  @Post(':conversationId')
  chat(
    @Param('conversationId') conversationId: string,
    @Body() body: { text: string },
    @Res() response: ServerResponse,
  ): void {
    const model = wrapLanguageModel({
      model: openai.chat(process.env.LLM_MODEL ?? 'gpt-4o-mini'),
      // Loads the stored window before each step; stores the turn when the stream finishes.
      middleware: agentMemoryMiddleware({ store: this.store, conversationId }),
    });
    streamText({ model, system: 'Be brief.', prompt: body.text }).pipeTextStreamToResponse(
      response,
    );
  }
}

@Module({
  imports: [ChatMemoryModule.forRoot({ backend: 'memory' })],
  controllers: [AiSdkChatController],
})
export class AiSdkChatModule {}
