import { Module } from '@nestjs/common';
import { ConfigurableChatMemoryModule } from './chat-memory.module-definition.js';

/**
 * The storage layer of conversation memory.
 *
 * `ChatMemoryModule.forRoot({ backend: 'postgres', url })` provides a `ChatMemoryStore` under
 * `CHAT_MEMORY_STORE` (inject it with `@InjectChatMemoryStore()`); with `name`, under
 * `getChatMemoryStoreToken(name)`. `forRootAsync` accepts `useFactory`+`inject`, `useClass` and
 * `useExisting`. Options are validated at bootstrap; connections come from the shared registry and
 * are released on shutdown.
 *
 * @property forRoot Provides the store for these options; the extras `name` and `isGlobal`
 *   (default `true`) go beside them.
 * @property forRootAsync Like `forRoot`, with the options from `useFactory` (+ `inject`),
 *   `useClass` or `useExisting` (a class with `createChatMemoryOptions()`).
 */
@Module({})
export class ChatMemoryModule extends ConfigurableChatMemoryModule {}
