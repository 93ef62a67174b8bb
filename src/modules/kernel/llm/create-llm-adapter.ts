import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';
import type { LlmAdapter } from '../interfaces/llm.interface.js';
import { AnthropicLlmAdapter } from './anthropic/anthropic.adapter.js';
import { EchoLlmAdapter } from './echo/echo.adapter.js';
import type { LlmOptions } from './llm-options.js';
import { OpenAiLlmAdapter } from './openai/openai.adapter.js';

/** Builds a built-in adapter from its options; reads `OPENAI_*`/`ANTHROPIC_API_KEY` from `env`. */
export function createLlmAdapter(
  options: LlmOptions,
  env: Record<string, string | undefined> = process.env,
): LlmAdapter {
  switch (options?.provider) {
    case 'openai':
      assertModel(options.model);
      return new OpenAiLlmAdapter(options, env);
    case 'anthropic':
      assertModel(options.model);
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

function assertModel(model: unknown): void {
  if (typeof model !== 'string' || model.length === 0) {
    throw new InvalidModuleOptionsError(
      'KernelModule',
      'llm.model',
      'must be a non-empty model name',
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
