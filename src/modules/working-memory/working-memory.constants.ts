/** Injection token of the working-memory store port (the backend's atomic primitives). */
export const WORKING_MEMORY_STORE = 'AgentMemory:WorkingMemoryStore';
