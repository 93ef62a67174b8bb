// examples/langchain-history.module.ts
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { RunnableWithMessageHistory } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import { Injectable, Module } from '@nestjs/common';
import { ChatMemoryModule, type ChatMemoryStore, InjectChatMemoryStore } from 'nest-agent-memory';
import { AgentMemoryChatMessageHistory } from 'nest-agent-memory/langchain';

const prompt = ChatPromptTemplate.fromMessages([
  ['system', 'You are a helpful assistant. Be brief.'],
  new MessagesPlaceholder('history'),
  ['human', '{question}'],
]);

/** A LangChain chain whose history lives in the app's chat memory store, one conversation per session. */
@Injectable()
export class LangchainChatService {
  private readonly chain: RunnableWithMessageHistory<{ question: string }, unknown>;

  constructor(@InjectChatMemoryStore() store: ChatMemoryStore) {
    // The key comes from OPENAI_API_KEY; the URL may be any server speaking Chat Completions.
    const model = new ChatOpenAI({
      model: process.env.LLM_MODEL ?? 'gpt-4.1-mini',
      configuration: { baseURL: process.env.OPENAI_BASE_URL },
    });
    this.chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(model),
      getMessageHistory: (sessionId: string) => new AgentMemoryChatMessageHistory(store, sessionId),
      inputMessagesKey: 'question',
      historyMessagesKey: 'history',
    });
  }

  /** One turn: the chain reads the conversation, answers, and appends the question and the answer. */
  async ask(conversationId: string, question: string): Promise<string> {
    const answer = (await this.chain.invoke(
      { question },
      { configurable: { sessionId: conversationId } },
    )) as { content: unknown };
    return String(answer.content);
  }
}

@Module({
  imports: [
    // Read when the app starts, not when this file is imported.
    ChatMemoryModule.forRootAsync({
      useFactory: () => ({ uri: process.env.CHAT_MEMORY_URI ?? 'sqlite:chat.sqlite' }),
    }),
  ],
  providers: [LangchainChatService],
  exports: [LangchainChatService],
})
export class LangchainChatModule {}
