import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { assertKnownOptionKeys } from '../../common/options/known-option-keys.js';
import type { LlmAdapter } from './interfaces/llm.interface.js';
import { AnthropicLlmAdapter } from './anthropic/anthropic.adapter.js';
import { EchoLlmAdapter } from './echo/echo.adapter.js';
import type { HttpLlmOptions, LlmOptions } from './llm-options.js';
import { OpenAiLlmAdapter } from './openai/openai.adapter.js';

const HTTP_KEYS = [
  'provider',
  'model',
  'timeoutMs',
  'streamIdleTimeoutMs',
  'retry',
  'temperature',
  'maxTokens',
  'baseUrl',
  'apiKey',
] as const;
/** The keys each provider accepts. */
const KEYS: Record<LlmOptions['provider'], readonly string[]> = {
  openai: HTTP_KEYS,
  anthropic: [...HTTP_KEYS, 'apiVersion'],
  echo: ['provider', 'script', 'toolCommands'],
};
const RETRY_KEYS = ['maxRetries', 'baseDelayMs', 'maxDelayMs'] as const;

/** Where the LLM options sit, for errors: the module and the option's path. */
export interface LlmOptionsPlace {
  moduleName: string;
  /** e.g. `llm` */
  option: string;
}

/**
 * Builds a built-in adapter from its options; reads `OPENAI_*`/`ANTHROPIC_API_KEY` from `env`.
 * Invalid options throw `InvalidModuleOptionsError` naming the option, never showing its values
 * (they hold an API key).
 */
export function createLlmAdapter(
  options: LlmOptions,
  env: Record<string, string | undefined> = process.env,
  place: LlmOptionsPlace = { moduleName: 'KernelModule', option: 'llm' },
): LlmAdapter {
  const provider = (options as { provider?: unknown } | null | undefined)?.provider;
  if (typeof options !== 'object' || options === null || !((provider as string) in KEYS)) {
    const got =
      typeof options === 'object' && options !== null
        ? `provider ${JSON.stringify(provider)}`
        : String(options);
    throw new InvalidModuleOptionsError(
      place.moduleName,
      place.option,
      `must be { provider: 'openai' | 'anthropic' | 'echo', … } or an LlmAdapter, got ${got}`,
    );
  }
  assertKnownOptionKeys(place.moduleName, options, KEYS[options.provider], `${place.option}.`);
  switch (options.provider) {
    case 'openai':
      assertHttpOptions(options, place);
      return new OpenAiLlmAdapter(options, env);
    case 'anthropic':
      assertHttpOptions(options, place);
      return new AnthropicLlmAdapter(options, env);
    case 'echo':
      if (options.toolCommands !== undefined && typeof options.toolCommands !== 'boolean')
        throw new InvalidModuleOptionsError(
          place.moduleName,
          `${place.option}.toolCommands`,
          'must be true or false',
        );
      return new EchoLlmAdapter(options);
  }
}

/** Checks an HTTP adapter's settings at bootstrap, naming the bad one. */
function assertHttpOptions(options: HttpLlmOptions, place: LlmOptionsPlace): void {
  const fail = (option: string, problem: string): never => {
    throw new InvalidModuleOptionsError(place.moduleName, `${place.option}.${option}`, problem);
  };
  if (typeof options.model !== 'string' || options.model.length === 0)
    fail('model', 'must be a non-empty model name');
  if (options.retry !== undefined) {
    if (typeof options.retry !== 'object' || options.retry === null)
      fail('retry', 'must be an object');
    assertKnownOptionKeys(place.moduleName, options.retry, RETRY_KEYS, `${place.option}.retry.`);
  }
  const counts: Array<[string, unknown, number]> = [
    ['timeoutMs', options.timeoutMs, 1],
    ['streamIdleTimeoutMs', options.streamIdleTimeoutMs, 1],
    ['maxTokens', options.maxTokens, 1],
    ['retry.maxRetries', options.retry?.maxRetries, 0],
    ['retry.baseDelayMs', options.retry?.baseDelayMs, 0],
    ['retry.maxDelayMs', options.retry?.maxDelayMs, 0],
  ];
  for (const [name, value, min] of counts) {
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= min))
      fail(name, `must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  }
  if (options.temperature !== undefined && !Number.isFinite(options.temperature))
    fail('temperature', `must be a finite number, got ${JSON.stringify(options.temperature)}`);
  for (const name of ['baseUrl', 'apiKey'] as const) {
    const value = (options as { baseUrl?: unknown; apiKey?: unknown })[name];
    if (value !== undefined && typeof value !== 'string') fail(name, 'must be a string');
  }
}

/** True for an object that implements `LlmAdapter`. */
export function isLlmAdapter(value: unknown): value is LlmAdapter {
  return (
    typeof (value as LlmAdapter | null)?.chat === 'function' &&
    typeof (value as LlmAdapter).stream === 'function'
  );
}
