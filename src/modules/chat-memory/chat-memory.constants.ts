/** Injection token of the default (unnamed) chat memory store. */
export const CHAT_MEMORY_STORE = 'AgentMemory:ChatMemoryStore';

/**
 * The injection token of a chat memory store: {@link CHAT_MEMORY_STORE} without a name, or a token
 * of its own for each named store (`ChatMemoryModule.forRoot({ …, name })`).
 */
export function getChatMemoryStoreToken(name?: string): string {
  return name ? `${CHAT_MEMORY_STORE}:${name}` : CHAT_MEMORY_STORE;
}

/** Internal token of a module's store lease (the store and what releases its connection). */
export const CHAT_MEMORY_STORE_HANDLE = Symbol('ChatMemoryStoreHandle');
