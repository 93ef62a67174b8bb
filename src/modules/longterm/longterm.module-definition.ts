import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { withFeatureProviders } from '../connections/feature-module.js';
import { injectDataSourceToken } from '../connections/sql/data-source-option.js';
import { DisabledLongtermStore } from './disabled-longterm.store.js';
import { type LongtermBackend, openLongtermBackend } from './longterm-backend.factory.js';
import { LongtermMemoryService } from './longterm-memory.service.js';
import {
  LONGTERM_BACKEND,
  LONGTERM_EMBEDDER,
  LONGTERM_MEMORY_STORE,
  LONGTERM_OPTIONS,
} from './longterm.constants.js';
import { resolveEmbedder } from './recall/embedding/resolve-embedder.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { validateLongtermOptions } from './longterm-options.validation.js';

export const {
  ConfigurableModuleClass: ConfigurableLongtermModule,
  MODULE_OPTIONS_TOKEN: LONGTERM_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<LongtermMemoryModuleOptions>({ moduleName: 'LongtermMemory' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createLongtermMemoryOptions')
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: true }, addProviders)
  .build();

function addProviders(definition: DynamicModule, extras: { isGlobal?: boolean }): DynamicModule {
  // `dataSource: getDataSourceToken(name)` in forRoot: the app's TypeORM connection, injected.
  const resolved = injectDataSourceToken(definition, LONGTERM_MODULE_OPTIONS, {
    get: (options) => options.dataSource,
    set: (options, dataSource) => ({ ...options, dataSource }),
  });
  return withFeatureProviders(resolved, extras.isGlobal, {
    providers: [
      {
        provide: LONGTERM_OPTIONS,
        useFactory: validateLongtermOptions,
        inject: [LONGTERM_MODULE_OPTIONS],
      },
      {
        provide: LONGTERM_BACKEND,
        useFactory: openLongtermBackend,
        inject: [LONGTERM_OPTIONS, ConnectionRegistry],
      },
      {
        provide: LONGTERM_MEMORY_STORE,
        useFactory: (backend: LongtermBackend | undefined) =>
          backend?.value.store ?? new DisabledLongtermStore(),
        inject: [LONGTERM_BACKEND],
      },
      {
        provide: LONGTERM_EMBEDDER,
        useFactory: (options: LongtermMemoryModuleOptions) =>
          resolveEmbedder(options.recall?.embedder),
        inject: [LONGTERM_OPTIONS],
      },
      LongtermMemoryService,
    ],
    exports: [LONGTERM_MEMORY_STORE, LongtermMemoryService],
  });
}
