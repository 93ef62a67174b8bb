import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getMemoryProviderToken } from './memory-provider.constants.js';
import { createMemoryProvider } from './memory-provider.factory.js';
import type {
  MemoryProviderModuleExtras,
  MemoryProviderModuleOptions,
} from './memory-provider.options.js';

export const {
  ConfigurableModuleClass: ConfigurableMemoryProviderModule,
  MODULE_OPTIONS_TOKEN: MEMORY_PROVIDER_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<MemoryProviderModuleOptions>({ moduleName: 'MemoryProvider' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMemoryProviderOptions')
  .setExtras<MemoryProviderModuleExtras>({ name: undefined, isGlobal: true }, addProvider)
  .build();

function addProvider(definition: DynamicModule, extras: MemoryProviderModuleExtras): DynamicModule {
  const token = getMemoryProviderToken(extras.name);
  return {
    ...definition,
    global: extras.isGlobal,
    providers: [
      ...(definition.providers ?? []),
      {
        provide: token,
        useFactory: createMemoryProvider,
        inject: [MEMORY_PROVIDER_MODULE_OPTIONS, ModuleRef],
      },
    ],
    exports: [token],
  };
}
