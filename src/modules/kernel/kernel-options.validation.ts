import { OptionChecker } from '../../common/options/option-checker.js';
import type { KernelModuleOptions } from './kernel.options.js';

const KEYS = ['llm', 'filters', 'tools', 'maxToolIterations'] as const;

/**
 * Checks `KernelModule` options at bootstrap (the model's settings are checked when its adapter is
 * built) and returns them typed, or throws `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateKernelOptions(value: unknown): KernelModuleOptions {
  const check = new OptionChecker('KernelModule');
  const options = check.object(value);
  check.keys(options, KEYS);
  if (options.llm === undefined)
    check.fail(
      'llm',
      "is required: { model: <an AI SDK model> }, { provider: 'openai' | 'anthropic' | 'openai-compatible' | 'echo', … } or an LlmAdapter (instance or class)",
    );
  for (const list of ['filters', 'tools'] as const)
    if (options[list] !== undefined && !Array.isArray(options[list]))
      check.fail(list, 'must be an array');
  check.integer('maxToolIterations', options.maxToolIterations, 0);
  return options as unknown as KernelModuleOptions;
}
