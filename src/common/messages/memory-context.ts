import type { ChatMessage } from './chat-message.interface.js';

/**
 * The `metadata` flag of a memory-context message (`{ [MEMORY_CONTEXT]: true }`): data the kernel
 * put before the user's message, not something the user said. Providers never receive metadata; a
 * model adapter or filter that reads the conversation can tell the two apart by it.
 */
export const MEMORY_CONTEXT = 'memoryContext';

/** Whether a message is one of the kernel's memory-context messages. */
export function isMemoryContext(message: ChatMessage): boolean {
  return message.metadata?.[MEMORY_CONTEXT] === true;
}
