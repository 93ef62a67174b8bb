import { FALLBACK_AGENT_CHAT_STORE } from './agent.constants.js';
import { Global, Logger, Module } from '@nestjs/common';
import { InMemoryChatMemoryStore } from '../chat-memory/backends/in-memory.chat-memory.store.js';

/**
 * Holds the app's one fallback chat store (process memory), shared by every agent of the app, for
 * apps that configure no `ChatMemoryModule`. Created on first use only.
 */
@Global()
@Module({
  providers: [
    {
      provide: FALLBACK_AGENT_CHAT_STORE,
      useFactory: () => {
        let store: InMemoryChatMemoryStore | undefined;
        return () => {
          if (!store) {
            new Logger('AgentModule').warn(
              'No ChatMemoryModule in the app: agents keep history in process memory',
            );
            store = new InMemoryChatMemoryStore();
          }
          return store;
        };
      },
    },
  ],
  exports: [FALLBACK_AGENT_CHAT_STORE],
})
export class AgentDefaultsModule {}
