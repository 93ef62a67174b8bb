import { Test } from '@nestjs/testing';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryModuleOptions } from '../../src/modules/chat-memory/chat-memory.options.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { InstanceUnderTest } from '../../src/testing/conformance-hooks.js';

/**
 * Boots a Nest testing module with `ChatMemoryModule.forRoot(options)`: each call is an independent
 * application, with its own connection registry and so its own connections.
 */
export async function openChatMemoryModule(
  options: ChatMemoryModuleOptions,
): Promise<InstanceUnderTest<ChatMemoryStore>> {
  const moduleRef = await Test.createTestingModule({
    imports: [ChatMemoryModule.forRoot(options)],
  }).compile();
  await moduleRef.init();
  return {
    subject: moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE),
    close: () => moduleRef.close(),
  };
}
