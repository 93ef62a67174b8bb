import { serverUrlProblem } from '../connections/server-url.js';
import { OptionChecker } from '../../common/options/option-checker.js';
import { DropOldestCompactor } from './compactors/drop-oldest.compactor.js';
import { SummarizeCompactor } from './compactors/summarize.compactor.js';
import type { WorkingMemoryModuleOptions } from './working-memory.options.js';

const COMMON_KEYS = [
  'backend',
  'capBytes',
  'softCapRatio',
  'compactor',
  'ttlMs',
  'onExpire',
  'sweep',
  'now',
  'maxValueBytes',
  'quota',
  'reclaimAfterIdleMs',
];
const KEYS: Record<string, readonly string[]> = {
  memory: [...COMMON_KEYS, 'capacity'],
  redis: [...COMMON_KEYS, 'url', 'client', 'keyPrefix'],
};

/** The default hard cap per conversation: 1 MiB. */
export const DEFAULT_WORKING_MEMORY_CAP_BYTES = 1024 * 1024;

/** The default most bytes of one value's JSON: 256 KiB. */
export const DEFAULT_WORKING_MEMORY_MAX_VALUE_BYTES = 256 * 1024;

/**
 * Checks `WorkingMemoryModule` options at bootstrap and returns them typed, or throws
 * `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateWorkingMemoryOptions(value: unknown): WorkingMemoryModuleOptions {
  const check = new OptionChecker('WorkingMemoryModule');
  const options = check.object(value);
  check.oneOf('backend', options.backend, ['memory', 'redis']);
  check.required('backend', options.backend);
  check.keys(options, KEYS[options.backend as string]!);
  if (options.backend === 'redis') {
    if (options.client === undefined) {
      check.required('url', options.url);
      check.string('url', options.url);
      const problem = serverUrlProblem(options.url as string, 'redis');
      if (problem) check.fail('url', problem);
    }
    check.string('keyPrefix', options.keyPrefix);
  }
  check.integer('capBytes', options.capBytes, 1);
  check.integer('maxValueBytes', options.maxValueBytes, 1);
  check.integer('reclaimAfterIdleMs', options.reclaimAfterIdleMs, 0);
  if (options.capacity !== undefined) {
    const capacity = check.object(options.capacity, 'capacity');
    check.keys(capacity, ['maxTotalBytes', 'maxConversations']);
    check.integer('capacity.maxTotalBytes', capacity.maxTotalBytes, 1);
    check.integer('capacity.maxConversations', capacity.maxConversations, 1);
  }
  if (options.quota !== undefined) {
    const quota = check.object(options.quota, 'quota');
    check.keys(quota, ['maxBytes', 'maxConversations', 'ownerOf']);
    check.integer('quota.maxBytes', quota.maxBytes, 1);
    check.integer('quota.maxConversations', quota.maxConversations, 1);
    check.function('quota.ownerOf', quota.ownerOf);
  }
  check.number('softCapRatio', options.softCapRatio, { min: 0, max: 1 });
  check.integer('ttlMs', options.ttlMs, 1);
  check.function('onExpire', options.onExpire);
  check.function('now', options.now);
  check.sweep('sweep', options.sweep);
  const { compactor } = options;
  if (
    compactor !== undefined &&
    compactor !== false &&
    !(compactor instanceof DropOldestCompactor) &&
    !(compactor instanceof SummarizeCompactor)
  )
    check.fail('compactor', 'must be a DropOldestCompactor, a SummarizeCompactor or false');
  if (compactor instanceof DropOldestCompactor && compactor.targetBytes !== undefined) {
    const cap = (options.capBytes as number | undefined) ?? DEFAULT_WORKING_MEMORY_CAP_BYTES;
    check.integer('compactor.targetBytes', compactor.targetBytes, 0, cap);
  }
  return options as unknown as WorkingMemoryModuleOptions;
}
