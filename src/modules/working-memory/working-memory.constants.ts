/** Injection token of the working-memory store port (the backend's atomic primitives). */
export const WORKING_MEMORY_STORE = 'AgentMemory:WorkingMemoryStore';

/** Internal token of the opened backend and what releases it. */
export const WORKING_MEMORY_BACKEND = Symbol('WorkingMemoryBackend');

/** Internal token of the module's options. */
export const WORKING_MEMORY_OPTIONS = Symbol('WorkingMemoryOptions');
