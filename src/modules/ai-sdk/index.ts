/**
 * `nest-agent-memory/ai-sdk`: the package's memory for apps that call the Vercel AI SDK themselves
 * (a language-model middleware, `UIMessage` conversions), and the adapter that runs any AI SDK model
 * as the kernel's model.
 */
export {
  agentMemoryMiddleware,
  type AgentMemoryMiddleware,
  type AgentMemoryMiddlewareOptions,
} from './agent-memory.middleware.js';
export { fromUIMessages, toUIMessages, type UiMessage, type UiMessagePart } from './ui-messages.js';
export { AiSdkLlmAdapter } from '../llm/ai-sdk/ai-sdk.adapter.js';
export type { AiSdkLanguageModel } from '../llm/ai-sdk/ai-sdk-language-model.js';
