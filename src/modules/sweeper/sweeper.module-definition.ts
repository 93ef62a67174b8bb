import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { withFeatureProviders } from '../connections/feature-module.js';
import { openBullQueue } from '../connections/redis/open-bull-queue.js';
import { BullSweepScheduler } from './bull.sweep-scheduler.js';
import { IntervalSweepScheduler } from './interval.sweep-scheduler.js';
import { type OpenedSweepDriver, SweepSchedulerService } from './sweep-scheduler.service.js';
import { SWEEP_DRIVER } from './sweeper.constants.js';
import { SWEEP_SCHEDULER } from './sweeper.constants.js';
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
  const check = new OptionChecker('SweeperModule');
  const checked = check.object(options);
  check.oneOf('driver', checked.driver, ['interval', 'bull']);
  check.keys(checked, checked.driver === 'bull' ? ['driver', 'redisUrl', 'prefix'] : ['driver']);
  check.string('prefix', checked.prefix);
  switch (options?.driver) {
    case 'interval':
      return { value: new IntervalSweepScheduler(), release: async () => undefined };
    case 'bull': {
      if (typeof options.redisUrl !== 'string' || options.redisUrl.length === 0)
        throw new InvalidModuleOptionsError('SweeperModule', 'redisUrl', 'is required for bull');
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
    default:
      throw new InvalidModuleOptionsError(
        'SweeperModule',
        'driver',
        `must be interval or bull, got ${JSON.stringify((options as { driver?: unknown })?.driver)}`,
      );
  }
}

function addProviders(definition: DynamicModule, extras: { isGlobal?: boolean }): DynamicModule {
  return withFeatureProviders(definition, extras.isGlobal, {
    providers: [
      {
        provide: SWEEP_DRIVER,
        useFactory: openDriver,
        inject: [SWEEPER_MODULE_OPTIONS, ConnectionRegistry],
      },
      SweepSchedulerService,
      { provide: SWEEP_SCHEDULER, useExisting: SweepSchedulerService },
    ],
    exports: [SWEEP_SCHEDULER, SweepSchedulerService],
  });
}
