import {
  ConfigurableModuleBuilder,
  type DynamicModule,
  type Provider,
  type Type,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { injectDataSourceToken } from '../connections/sql/data-source-option.js';
import { CHAT_MEMORY_STORE_HANDLE, getChatMemoryStoreToken } from './chat-memory.constants.js';
import type { ChatMemoryModuleExtras, ChatMemoryModuleOptions } from './chat-memory.options.js';
import { ChatMemoryStoreHandle } from './chat-memory-store.lease.js';
import { openChatMemoryStore } from './chat-memory-store.factory.js';
import type { ChatMemoryStore } from './interfaces/chat-memory-store.interface.js';

export const {
  ConfigurableModuleClass: ConfigurableChatMemoryModule,
  MODULE_OPTIONS_TOKEN: CHAT_MEMORY_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<ChatMemoryModuleOptions>({ moduleName: 'ChatMemory' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createChatMemoryOptions')
  .setExtras<ChatMemoryModuleExtras>({ name: undefined, isGlobal: true }, completeDefinition)
  .build();

/**
 * Adds the store providers to the definition the builder made. In the sync form the options are
 * known here, so a custom store class becomes a provider of the module (full DI and lifecycle).
 */
function completeDefinition(
  definition: DynamicModule,
  extras: ChatMemoryModuleExtras,
): DynamicModule {
  const token = getChatMemoryStoreToken(extras.name);
  const customClass = customStoreClass(extras);
  const storeProviders: Provider[] = customClass
    ? [{ provide: token, useClass: customClass }]
    : [
        {
          provide: CHAT_MEMORY_STORE_HANDLE,
          useFactory: openChatMemoryStore,
          inject: [CHAT_MEMORY_MODULE_OPTIONS, ConnectionRegistry, ModuleRef],
        },
        {
          provide: token,
          useFactory: (handle: ChatMemoryStoreHandle) => handle.store,
          inject: [CHAT_MEMORY_STORE_HANDLE],
        },
      ];
  const completed: DynamicModule = {
    ...definition,
    global: extras.isGlobal,
    imports: [...(definition.imports ?? []), ConnectionsModule],
    providers: [...(definition.providers ?? []), ...storeProviders],
    exports: [token],
  };
  // `dataSource: getDataSourceToken(name)` in forRoot: the app's TypeORM connection, injected.
  return injectDataSourceToken(completed, CHAT_MEMORY_MODULE_OPTIONS, {
    get: (options) => options.dataSource,
    set: (options, dataSource) => ({ ...options, dataSource }),
  });
}

/** The custom store class of a sync `forRoot` call (whose options reach the extras callback). */
function customStoreClass(extras: ChatMemoryModuleExtras): Type<ChatMemoryStore> | undefined {
  const options = extras as Partial<{ backend: unknown; store: unknown }>;
  return options.backend === 'custom' && typeof options.store === 'function'
    ? (options.store as Type<ChatMemoryStore>)
    : undefined;
}
