import { OptionChecker } from '../../common/options/option-checker.js';
import type { SweeperModuleOptions } from './sweeper.options.js';

const KEYS: Record<SweeperModuleOptions['driver'], readonly string[]> = {
  interval: ['driver'],
  bull: ['driver', 'redisUrl', 'prefix'],
};

/**
 * Checks `SweeperModule` options at bootstrap and returns them typed, or throws
 * `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateSweeperOptions(value: unknown): SweeperModuleOptions {
  const check = new OptionChecker('SweeperModule');
  const options = check.object(value);
  check.required('driver', options.driver);
  check.oneOf('driver', options.driver, ['interval', 'bull']);
  check.keys(options, KEYS[options.driver as SweeperModuleOptions['driver']]);
  if (options.driver === 'bull') {
    check.required('redisUrl', options.redisUrl);
    check.string('redisUrl', options.redisUrl);
    check.string('prefix', options.prefix);
  }
  return options as SweeperModuleOptions;
}
