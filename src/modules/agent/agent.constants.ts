/** Internal token of the agent's options, validated and normalized (`'none'` → `false`, `{ uri }` → backend). */
export const AGENT_OPTIONS = Symbol('AgentOptions');
/** Internal token of the agent's memory: `{ provider }` (`undefined` for `memory: false`). */
export const AGENT_MEMORY = Symbol('AgentMemory');
/** Internal token of the agent's run store lease (records, run cache, ownership). */
export const AGENT_RUNS = Symbol('AgentRuns');
/** Internal token of the agent's queue lease. */
export const AGENT_QUEUE = Symbol('AgentQueue');

/** Token of the chat store agents fall back to when the app has no `ChatMemoryModule`. */
export const FALLBACK_AGENT_CHAT_STORE = Symbol('FallbackAgentChatStore');
