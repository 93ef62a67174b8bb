/** Injection token of the long-term store (`LongtermMemoryStore`). */
export const LONGTERM_MEMORY_STORE = 'AgentMemory:LongtermMemoryStore';

/** Internal token of the opened backend (or `undefined` when the tier is off). */
export const LONGTERM_BACKEND = Symbol('LongtermBackend');

/** Internal token of the module's options. */
export const LONGTERM_OPTIONS = Symbol('LongtermOptions');

/** Internal token of the resolved embedding model (or `undefined`: recall is lexical only). */
export const LONGTERM_EMBEDDER = Symbol('LongtermEmbedder');
