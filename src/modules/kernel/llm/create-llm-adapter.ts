import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';
import type { LlmAdapter } from '../interfaces/llm.interface.js';
import { AnthropicLlmAdapter } from './anthropic/anthropic.adapter.js';
import { EchoLlmAdapter } from './echo/echo.adapter.js';
import type { HttpLlmOptions, LlmOptions } from './llm-options.js';
import { OpenAiLlmAdapter } from './openai/openai.adapter.js';

/** Builds a built-in adapter from its options; reads `OPENAI_*`/`ANTHROPIC_API_KEY` from `env`. */
export function createLlmAdapter(
  options: LlmOptions,
  env: Record<string, string | undefined> = process.env,
): LlmAdapter {
  switch (options?.provider) {
    case 'openai':
      assertHttpOptions(options);
      return new OpenAiLlmAdapter(options, env);
    case 'anthropic':
      assertHttpOptions(options);
      return new AnthropicLlmAdapter(options, env);
    case 'echo':
      return new EchoLlmAdapter(options);
    default:
      throw new InvalidModuleOptionsError(
        'KernelModule',
        'llm',
        `must be { provider: 'openai' | 'anthropic' | 'echo', … } or an LlmAdapter, got ${JSON.stringify(options)}`,
      );
  }
}

/** Checks an HTTP adapter's settings at bootstrap, naming the bad one. */
function assertHttpOptions(options: HttpLlmOptions): void {
  if (typeof options.model !== 'string' || options.model.length === 0) {
    throw new InvalidModuleOptionsError(
      'KernelModule',
      'llm.model',
      'must be a non-empty model name',
    );
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
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= min)) {
      throw new InvalidModuleOptionsError(
        'KernelModule',
        `llm.${name}`,
        `must be an integer ≥ ${min}, got ${JSON.stringify(value)}`,
      );
    }
  }
  if (options.temperature !== undefined && !Number.isFinite(options.temperature)) {
    throw new InvalidModuleOptionsError(
      'KernelModule',
      'llm.temperature',
      `must be a finite number, got ${JSON.stringify(options.temperature)}`,
    );
  }
}

/** True for an object that implements `LlmAdapter`. */
export function isLlmAdapter(value: unknown): value is LlmAdapter {
  return (
    typeof (value as LlmAdapter | null)?.chat === 'function' &&
    typeof (value as LlmAdapter).stream === 'function'
  );
}
