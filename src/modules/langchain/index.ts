/**
 * `nest-agent-memory/langchain`: LangChain.js chat history on the package's conversation stores.
 * Needs `@langchain/core` installed.
 */
export { AgentMemoryChatMessageHistory } from './agent-memory-chat-history.js';
export { LANGCHAIN_METADATA_KEY, toChatMessage, toLangchainMessage } from './langchain-messages.js';
