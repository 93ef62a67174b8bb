/** Injection token of the long-term store (`LongtermMemoryStore`). */
export const LONGTERM_MEMORY_STORE = 'AgentMemory:LongtermMemoryStore';
