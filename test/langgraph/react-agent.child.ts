/**
 * One process of the LangGraph restart test: a Nest app with `LangGraphModule` and
 * `LongtermMemoryModule`, a `createReactAgent` graph on a `ChatOpenAI` model (pointed at the test's
 * local server) with the package's checkpointer and store, and one user turn on a thread. Prints
 * the reply and the tool results as JSON, then closes the app.
 *
 * Arguments: model URL, checkpoint URI, long-term URI, thread id, the user's message.
 */
import 'reflect-metadata';
import { tool } from '@langchain/core/tools';
import { getStore } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { z } from 'zod';
import { LongtermMemoryModule } from '../../src/index.js';
import {
  AgentMemoryCheckpointSaver,
  AgentMemoryStore,
  LangGraphModule,
} from '../../src/modules/langgraph/index.js';

const [modelUrl, checkpointUri, longtermUri, threadId, message] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];

@Module({
  imports: [
    LongtermMemoryModule.forRoot({ uri: longtermUri }),
    LangGraphModule.forRoot({ uri: checkpointUri, store: { entityParts: 1 } }),
  ],
})
class GraphModule {}

const remember = tool(
  async ({ fact }) => {
    await getStore()!.put([threadId, 'facts'], `fact-${fact.length}`, { fact });
    return `saved: ${fact}`;
  },
  { name: 'remember', description: 'Saves a fact', schema: z.object({ fact: z.string() }) },
);
const recall = tool(
  async ({ query }) => {
    const items = await getStore()!.search([threadId, 'facts'], { query });
    return items.map((item) => String(item.value['fact'])).join('\n') || 'nothing';
  },
  { name: 'recall', description: 'Finds saved facts', schema: z.object({ query: z.string() }) },
);

const app = await NestFactory.createApplicationContext(GraphModule, { logger: false });
try {
  const agent = createReactAgent({
    llm: new ChatOpenAI({ model: 'stub', apiKey: 'test', configuration: { baseURL: modelUrl } }),
    tools: [remember, recall],
    checkpointer: app.get(AgentMemoryCheckpointSaver),
    store: app.get(AgentMemoryStore),
  });
  const result = await agent.invoke(
    { messages: [{ role: 'user', content: message }] },
    { configurable: { thread_id: threadId } },
  );
  const messages = result.messages;
  process.stdout.write(
    `${JSON.stringify({
      reply: messages.at(-1)!.content,
      tools: messages.filter((m) => m.getType() === 'tool').map((m) => m.content),
      count: messages.length,
    })}\n`,
  );
} finally {
  await app.close();
}
