import type { OnApplicationShutdown } from '@nestjs/common';
import type { ChatMemoryStore } from './interfaces/chat-memory-store.interface.js';

/**
 * Holds a module's store together with what must happen at shutdown: releasing the connection lease
 * the store was opened with.
 */
export class ChatMemoryStoreHandle implements OnApplicationShutdown {
  constructor(
    readonly store: ChatMemoryStore,
    private readonly shutdown: () => Promise<void> = async () => undefined,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.shutdown();
  }
}
