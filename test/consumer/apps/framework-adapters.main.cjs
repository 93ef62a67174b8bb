// The same adapters from CommonJS, with require() (Node >= 20.19 loads ESM packages that way).
/* eslint-disable @typescript-eslint/no-require-imports -- this file is a CommonJS app */
require('reflect-metadata');
const { AIMessage, HumanMessage } = require('@langchain/core/messages');
const { END, MessagesAnnotation, START, StateGraph } = require('@langchain/langgraph');
const { CHAT_MEMORY_STORE, ChatMemoryModule } = require('nest-agent-memory');
const { AgentMemoryChatMessageHistory } = require('nest-agent-memory/langchain');
const { openCheckpointSaver } = require('nest-agent-memory/langgraph');
const { MCP_MEMORY_TOOL_NAMES } = require('nest-agent-memory/mcp');
const { ChatMemorySession } = require('nest-agent-memory/openai-agents');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');

const uri = `sqlite:${process.argv[2]}`;
class AppModule {}
Module({ imports: [ChatMemoryModule.forRoot({ uri })] })(AppModule);

(async () => {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const chats = app.get(CHAT_MEMORY_STORE);
  const history = new AgentMemoryChatMessageHistory(chats, 'langchain-1');
  await history.addMessages([new HumanMessage('hi'), new AIMessage('hello')]);
  const session = new ChatMemorySession({ store: chats, sessionId: 'agents-1' });
  await session.addItems([{ role: 'user', content: 'hi' }]);

  // The checkpointer without Nest: its own connection, closed by the lease.
  const checkpoints = await openCheckpointSaver({ uri });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('answer', () => ({ messages: [new AIMessage('pong')] }))
    .addEdge(START, 'answer')
    .addEdge('answer', END)
    .compile({ checkpointer: checkpoints.value });
  const config = { configurable: { thread_id: 'thread-1' } };
  await graph.invoke({ messages: [new HumanMessage('ping')] }, config);
  const state = await graph.invoke({ messages: [new HumanMessage('ping')] }, config);
  await checkpoints.release();

  console.log(
    JSON.stringify({
      langchain: (await history.getMessages()).map((message) => message.content),
      langgraph: state.messages.length,
      openaiAgents: (await session.getItems()).length,
      mcp: MCP_MEMORY_TOOL_NAMES.length > 0,
    }),
  );
  await app.close();
})();
