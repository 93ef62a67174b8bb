import { Inject } from '@nestjs/common';
import { getChatMemoryStoreToken } from './chat-memory.constants.js';

/**
 * Injects a `ChatMemoryStore`: the default one, or the store registered under `name`.
 *
 * @example constructor(@InjectChatMemoryStore() private readonly store: ChatMemoryStore) {}
 */
export function InjectChatMemoryStore(name?: string): ParameterDecorator & PropertyDecorator {
  return Inject(getChatMemoryStoreToken(name));
}
