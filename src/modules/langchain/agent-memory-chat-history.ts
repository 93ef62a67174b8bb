import { BaseListChatMessageHistory } from '@langchain/core/chat_history';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { toChatMessage, toLangchainMessage } from './langchain-messages.js';

/**
 * A LangChain chat message history (`BaseListChatMessageHistory`) over any `ChatMemoryStore` of the
 * package (memory, SQLite, PostgreSQL, MySQL/MariaDB, Redis): what `RunnableWithMessageHistory`
 * and LangChain agents read and append.
 *
 * `addMessages` is one atomic append: all of a batch is stored, in order, or none. Messages keep
 * their LangChain form exactly (tool calls, tool call ids, names, additional and response
 * metadata, content blocks, ids) and are stored in the package's native form too, so the package's
 * agent, HTTP API and inspector read the same conversation; a message with an id is stored once
 * however often it is added.
 */
export class AgentMemoryChatMessageHistory extends BaseListChatMessageHistory {
  /** LangChain's serialization namespace of this class. */
  lc_namespace = ['nest_agent_memory', 'langchain'];

  /**
   * @param store the conversation store (inject it with `@InjectChatMemoryStore()`)
   * @param conversationId the conversation this history reads and appends (LangChain's session id)
   */
  constructor(
    private readonly store: ChatMemoryStore,
    readonly conversationId: string,
  ) {
    super();
  }

  /** Every message of the conversation, oldest first. */
  async getMessages(): Promise<BaseMessage[]> {
    return (await this.store.get(this.conversationId)).map(toLangchainMessage);
  }

  /** Appends one message. */
  override async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  /** Appends a batch in one atomic write. */
  override async addMessages(messages: BaseMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.store.add(this.conversationId, messages.map(toChatMessage));
  }

  /** Removes the conversation. */
  override async clear(): Promise<void> {
    await this.store.clear(this.conversationId);
  }
}
