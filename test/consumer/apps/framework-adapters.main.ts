// A user's ESM app on the packed package: each framework adapter, once, on SQLite.
import 'reflect-metadata';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CHAT_MEMORY_STORE,
  ChatMemoryModule,
  type ChatMemoryStore,
  LongtermMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryChatMessageHistory } from 'nest-agent-memory/langchain';
import {
  AgentMemoryCheckpointSaver,
  AgentMemoryStore,
  LangGraphModule,
} from 'nest-agent-memory/langgraph';
import { AgentMemoryMcpModule, MCP_MEMORY_TOOL_NAMES } from 'nest-agent-memory/mcp';
import { ChatMemorySession } from 'nest-agent-memory/openai-agents';

const uri = `sqlite:${process.argv[2]!}`;

@Module({
  imports: [
    ChatMemoryModule.forRoot({ uri }),
    LongtermMemoryModule.forRoot({ uri }),
    LangGraphModule.forRoot({ uri, store: { entityParts: 1 } }),
  ],
})
class AppModule {}

const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
const chats = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);

const history = new AgentMemoryChatMessageHistory(chats, 'langchain-1');
await history.addMessages([new HumanMessage('hi'), new AIMessage('hello')]);

const graph = new StateGraph(MessagesAnnotation)
  .addNode('answer', () => ({ messages: [new AIMessage('pong')] }))
  .addEdge(START, 'answer')
  .addEdge('answer', END)
  .compile({ checkpointer: app.get(AgentMemoryCheckpointSaver), store: app.get(AgentMemoryStore) });
const config = { configurable: { thread_id: 'thread-1' } };
await graph.invoke({ messages: [new HumanMessage('ping')] }, config);
const state = await graph.invoke({ messages: [new HumanMessage('ping')] }, config);
await app.get(AgentMemoryStore).put(['ada', 'facts'], 'tea', { fact: 'likes tea' });

const session = new ChatMemorySession({ store: chats, sessionId: 'agents-1' });
await session.addItems([{ role: 'user', content: 'hi' }]);

console.log(
  JSON.stringify({
    langchain: (await history.getMessages()).map((message) => message.content),
    langgraph: state.messages.length,
    store: (await app.get(AgentMemoryStore).get(['ada', 'facts'], 'tea'))?.value,
    openaiAgents: (await session.getItems()).length,
    mcp: typeof AgentMemoryMcpModule.forRoot === 'function' && MCP_MEMORY_TOOL_NAMES.length > 0,
  }),
);
await app.close();
