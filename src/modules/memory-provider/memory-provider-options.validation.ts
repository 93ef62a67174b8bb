import { OptionChecker } from '../../common/options/option-checker.js';

const KEYS: Record<string, readonly string[]> = {
  window: ['policy', 'window', 'store'],
  'token-budget': ['policy', 'maxTokens', 'counter', 'partTokens', 'store'],
  summarizing: ['policy', 'window', 'llm', 'instructions', 'store'],
  custom: ['policy', 'provider'],
};

/**
 * Checks `MemoryProviderModule` options at bootstrap: a known policy, only its keys (with the
 * nearest valid one suggested), and the shape of each; the providers check their numbers when
 * built. Throws `InvalidModuleOptionsError` naming the option at fault.
 */
export function validateMemoryProviderOptions(value: unknown): void {
  const check = new OptionChecker('MemoryProviderModule');
  const options = check.object(value ?? {});
  const policy = options.policy ?? 'window';
  check.oneOf('policy', policy, Object.keys(KEYS));
  check.keys(options, KEYS[policy as string]!);
  check.string('store', options.store);
  check.string('instructions', options.instructions, true);
  check.function('counter', options.counter);
  if (policy === 'summarizing') check.required('llm', options.llm);
  if (policy === 'token-budget') check.required('maxTokens', options.maxTokens);
  if (policy === 'custom') check.required('provider', options.provider);
}
