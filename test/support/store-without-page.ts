import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';

/** A store without `page` (a custom one written before it existed): every other method. */
export function withoutPage(store: ChatMemoryStore): ChatMemoryStore {
  return {
    get: (id) => store.get(id),
    add: (id, messages, options) => store.add(id, messages, options),
    clear: (id) => store.clear(id),
    tail: (id, n) => store.tail(id, n),
    range: (id, from, limit) => store.range(id, from, limit),
    version: (id) => store.version(id),
  };
}
