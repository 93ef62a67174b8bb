import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { withFeatureProviders } from '../connections/feature-module.js';
import { openBullQueue } from '../connections/redis/open-bull-queue.js';
import { BullSweepScheduler } from './bull.sweep-scheduler.js';
import { IntervalSweepScheduler } from './interval.sweep-scheduler.js';
import { type OpenedSweepDriver, SweepSchedulerService } from './sweep-scheduler.service.js';
import { SWEEP_DRIVER, SWEEP_SCHEDULER, SWEEPER_OPTIONS } from './sweeper.constants.js';
import { validateSweeperOptions } from './sweeper-options.validation.js';
import type { SweeperModuleOptions } from './sweeper.options.js';

export const {
  ConfigurableModuleClass: ConfigurableSweeperModule,
  MODULE_OPTIONS_TOKEN: SWEEPER_MODULE_OPTIONS,
} = new ConfigurableModuleBuilder<SweeperModuleOptions>({ moduleName: 'Sweeper' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createSweeperOptions')
  .setExtras<{ isGlobal?: boolean }>({ isGlobal: true }, addProviders)
  .build();

async function openDriver(
  options: SweeperModuleOptions,
  registry: ConnectionRegistry,
): Promise<OpenedSweepDriver> {
  if (options.driver === 'interval')
    return { value: new IntervalSweepScheduler(), release: async () => undefined };
  const lease = await registry.acquireRedis(options.redisUrl);
  const scheduler = new BullSweepScheduler((queueName) =>
    openBullQueue(
      queueName,
      { redisUrl: options.redisUrl, prefix: options.prefix },
      lease.value,
      'the bull sweep scheduler',
    ),
  );
  return { value: scheduler, release: lease.release };
}

function addProviders(definition: DynamicModule, extras: { isGlobal?: boolean }): DynamicModule {
  return withFeatureProviders(definition, extras.isGlobal, {
    providers: [
      {
        provide: SWEEPER_OPTIONS,
        useFactory: validateSweeperOptions,
        inject: [SWEEPER_MODULE_OPTIONS],
      },
      {
        provide: SWEEP_DRIVER,
        useFactory: openDriver,
        inject: [SWEEPER_OPTIONS, ConnectionRegistry],
      },
      SweepSchedulerService,
      { provide: SWEEP_SCHEDULER, useExisting: SweepSchedulerService },
    ],
    exports: [SWEEP_SCHEDULER, SweepSchedulerService],
  });
}
