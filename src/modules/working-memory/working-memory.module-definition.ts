import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { withFeatureProviders } from '../connections/feature-module.js';
import type { Lease } from '../../common/lease.js';
import type { WorkingMemoryBackend } from './backends/working-memory-backend.interface.js';
import {
  InMemoryWorkingMemoryBackend,
  DEFAULT_IN_MEMORY_CAPACITY,
} from './backends/in-memory.working-memory.backend.js';
import { RedisWorkingMemoryBackend } from './backends/redis.working-memory.backend.js';
import {
  WORKING_MEMORY_STORE,
  WORKING_MEMORY_OPTIONS,
  WORKING_MEMORY_BACKEND,
} from './working-memory.constants.js';
import type { WorkingMemoryModuleOptions } from './working-memory.options.js';
import { validateWorkingMemoryOptions } from './working-memory-options.validation.js';
import { WorkingMemoryService } from './working-memory.service.js';

export const {
  ConfigurableModuleClass: ConfigurableWorkingMemoryModule,
  MODULE_OPTIONS_TOKEN: WORKING_MEMORY_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<WorkingMemoryModuleOptions>({ moduleName: 'WorkingMemory' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createWorkingMemoryOptions')
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: true }, addProviders)
  .build();

async function openBackend(
  options: WorkingMemoryModuleOptions,
  registry: ConnectionRegistry,
): Promise<Lease<WorkingMemoryBackend>> {
  switch (options?.backend) {
    case 'memory':
      return {
        value: new InMemoryWorkingMemoryBackend({
          ...DEFAULT_IN_MEMORY_CAPACITY,
          ...options.capacity,
        }),
        release: async () => undefined,
      };
    case 'redis': {
      const lease = await registry.useRedis(options);
      return {
        value: new RedisWorkingMemoryBackend(lease.value, options.keyPrefix),
        release: lease.release,
      };
    }
    default:
      throw new InvalidModuleOptionsError(
        'WorkingMemoryModule',
        'backend',
        `must be memory or redis, got ${JSON.stringify((options as { backend?: unknown })?.backend)}`,
      );
  }
}

function addProviders(definition: DynamicModule, extras: { isGlobal?: boolean }): DynamicModule {
  return withFeatureProviders(definition, extras.isGlobal, {
    providers: [
      {
        provide: WORKING_MEMORY_OPTIONS,
        useFactory: validateWorkingMemoryOptions,
        inject: [WORKING_MEMORY_MODULE_OPTIONS],
      },
      {
        provide: WORKING_MEMORY_BACKEND,
        useFactory: openBackend,
        inject: [WORKING_MEMORY_OPTIONS, ConnectionRegistry],
      },
      {
        provide: WORKING_MEMORY_STORE,
        useFactory: (opened: Lease<WorkingMemoryBackend>) => opened.value,
        inject: [WORKING_MEMORY_BACKEND],
      },
      WorkingMemoryService,
    ],
    exports: [WorkingMemoryService, WORKING_MEMORY_STORE],
  });
}
