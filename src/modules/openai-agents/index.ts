/**
 * `nest-agent-memory/openai-agents`: the OpenAI Agents SDK's `Session` over the library's
 * conversation memory (any backend of `ChatMemoryModule`), and the library's reading of a
 * conversation such a session wrote.
 */
export { ChatMemorySession, type ChatMemorySessionOptions } from './chat-memory-session.js';
export { SessionHistoryConflictError } from './session-history-conflict.error.js';
export { OPENAI_AGENTS_METADATA_KEY, liveSessionMessages } from './session-log.js';
