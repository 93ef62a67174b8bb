// examples/langgraph-agent.module.ts
import { tool } from '@langchain/core/tools';
import { getStore } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Injectable, Module } from '@nestjs/common';
import { LongtermMemoryModule } from 'nest-agent-memory';
import {
  AgentMemoryCheckpointSaver,
  AgentMemoryStore,
  LangGraphModule,
} from 'nest-agent-memory/langgraph';
import { z } from 'zod';

// Items are put under [userId, 'facts']: the first namespace part is the long-term entity.
const remember = tool(
  async ({ fact }, config) => {
    const userId = String(config.configurable?.['userId']);
    await getStore()!.put([userId, 'facts'], `fact-${Date.now()}`, { fact });
    return 'Saved.';
  },
  {
    name: 'remember',
    description: 'Saves a fact about the user',
    schema: z.object({ fact: z.string() }),
  },
);

const recall = tool(
  async ({ query }, config) => {
    const userId = String(config.configurable?.['userId']);
    const items = await getStore()!.search([userId, 'facts'], { query, limit: 5 });
    return items.map((item) => String(item.value['fact'])).join('\n') || 'Nothing saved.';
  },
  {
    name: 'recall',
    description: 'Finds saved facts about the user',
    schema: z.object({ query: z.string() }),
  },
);

/** A LangGraph ReAct agent: threads in the package's checkpointer, facts in its long-term memory. */
@Injectable()
export class LanggraphAgentService {
  private readonly agent;

  constructor(checkpointer: AgentMemoryCheckpointSaver, store: AgentMemoryStore) {
    this.agent = createReactAgent({
      // The key comes from OPENAI_API_KEY; the URL may be any server speaking Chat Completions.
      llm: new ChatOpenAI({
        model: process.env.LLM_MODEL ?? 'gpt-4.1-mini',
        configuration: { baseURL: process.env.OPENAI_BASE_URL },
      }),
      tools: [remember, recall],
      checkpointer,
      store,
    });
  }

  /** One turn on a thread; the thread's earlier turns come from the checkpointer. */
  async ask(userId: string, threadId: string, question: string): Promise<string> {
    const state = await this.agent.invoke(
      { messages: [{ role: 'user', content: question }] },
      { configurable: { thread_id: threadId, userId } },
    );
    return String(state.messages.at(-1)!.content);
  }
}

@Module({
  imports: [
    // Options read when the app starts, not when this file is imported.
    LongtermMemoryModule.forRootAsync({
      useFactory: () => ({ uri: process.env.MEMORY_URI ?? 'sqlite:memory.sqlite' }),
    }),
    // Checkpoints in the same database: one pool, one migration set.
    LangGraphModule.forRootAsync({
      useFactory: () => ({
        uri: process.env.MEMORY_URI ?? 'sqlite:memory.sqlite',
        store: { entityParts: 1 },
      }),
    }),
  ],
  providers: [LanggraphAgentService],
  exports: [LanggraphAgentService],
})
export class LanggraphAgentModule {}
