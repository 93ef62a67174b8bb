// examples/openai-agents-session.ts
import { Injectable, Module } from '@nestjs/common';
import { Agent, OpenAIProvider, Runner, tool } from '@openai/agents';
import { ChatMemoryModule, type ChatMemoryStore, InjectChatMemoryStore } from 'nest-agent-memory';
import { ChatMemorySession } from 'nest-agent-memory/openai-agents';
import { z } from 'zod';

const getWeather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

const agent = new Agent({
  name: 'Weather',
  instructions: 'Answer about the weather. Be brief.',
  model: process.env.LLM_MODEL ?? 'gpt-4.1-mini',
  tools: [getWeather],
});

/** Runs the OpenAI Agents SDK with each conversation kept in the app's chat memory store. */
@Injectable()
export class WeatherChatService {
  private readonly runner = new Runner({
    // The key comes from OPENAI_API_KEY; the URL may be any server speaking the Responses API.
    modelProvider: new OpenAIProvider({ baseURL: process.env.OPENAI_BASE_URL }),
  });

  constructor(@InjectChatMemoryStore() private readonly store: ChatMemoryStore) {}

  /** One turn: the session gives the runner the stored history and stores the turn's items. */
  async ask(conversationId: string, question: string): Promise<string | undefined> {
    const session = new ChatMemorySession({ store: this.store, sessionId: conversationId });
    const result = await this.runner.run(agent, question, { session });
    return result.finalOutput;
  }

  /**
   * Takes back the last exchange (a "regenerate" button): its items, newest first, down to and with
   * its question (an exchange that called tools holds their calls and results too).
   */
  async undoLastExchange(conversationId: string): Promise<void> {
    const session = new ChatMemorySession({ store: this.store, sessionId: conversationId });
    for (let item = await session.popItem(); item; item = await session.popItem())
      if ('role' in item && item.role === 'user') return;
  }
}

@Module({
  imports: [ChatMemoryModule.forRoot({ uri: process.env.CHAT_MEMORY_URI ?? 'sqlite:chat.sqlite' })],
  providers: [WeatherChatService],
  exports: [WeatherChatService],
})
export class WeatherChatModule {}
