import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { assertKnownOptionKeys } from '../../common/options/known-option-keys.js';
import type { LlmAdapter } from './interfaces/llm.interface.js';
import { AiSdkLlmAdapter } from './ai-sdk/ai-sdk.adapter.js';
import { checkedModel } from './ai-sdk/checked-model.js';
import { anthropicModel, openAiCompatibleModel, openAiModel } from './ai-sdk/provider-models.js';
import { EchoLlmAdapter } from './echo/echo.adapter.js';
import type { AiSdkModelOptions, LlmCallSettings, LlmOptions } from './llm-options.js';

const CALL_KEYS = [
  'timeoutMs',
  'streamIdleTimeoutMs',
  'retry',
  'temperature',
  'maxTokens',
  'providerOptions',
] as const;
const HTTP_KEYS = ['provider', 'model', 'baseUrl', 'apiKey', ...CALL_KEYS] as const;
/** The keys each built-in provider accepts. */
const KEYS = {
  openai: [...HTTP_KEYS, 'api'],
  anthropic: [...HTTP_KEYS, 'apiVersion'],
  'openai-compatible': [...HTTP_KEYS, 'name'],
  echo: ['provider', 'script', 'toolCommands'],
} as const satisfies Record<string, readonly string[]>;
const PROVIDERS = Object.keys(KEYS) as Array<keyof typeof KEYS>;
const RETRY_KEYS = ['maxRetries', 'baseDelayMs', 'maxDelayMs'] as const;

/** Where the LLM options sit, for errors: the module and the option's path. */
export interface LlmOptionsPlace {
  moduleName: string;
  /** e.g. `llm` */
  option: string;
}

/**
 * Builds an adapter from its options: an AI SDK model (`{ model: openai('gpt-4o') }`), a built-in
 * provider on its AI SDK package (`openai`, `anthropic`, `openai-compatible`; reads
 * `OPENAI_*`/`ANTHROPIC_API_KEY` from `env`), or `echo`. Invalid options throw
 * `InvalidModuleOptionsError` naming the option, never showing its values (they hold an API key).
 * A provider package is loaded in the background: `await adapter.ready()` (the modules do it at
 * bootstrap) reports a missing one.
 */
export function createLlmAdapter(
  options: LlmOptions,
  env: Record<string, string | undefined> = process.env,
  place: LlmOptionsPlace = { moduleName: 'KernelModule', option: 'llm' },
): LlmAdapter {
  const fail = (option: string, problem: string): never => {
    throw new InvalidModuleOptionsError(place.moduleName, option, problem);
  };
  if (typeof options !== 'object' || options === null)
    fail(
      place.option,
      `must be { model }, { provider, … } or an LlmAdapter, got ${String(options)}`,
    );
  const provider = (options as { provider?: unknown }).provider;
  if (provider === undefined && (options as { model?: unknown }).model !== undefined)
    return aiSdkAdapter(options as AiSdkModelOptions, place);
  if (!PROVIDERS.includes(provider as never)) {
    fail(
      place.option,
      `must be { model: <an AI SDK model> } or { provider: ${PROVIDERS.map((name) => `'${name}'`).join(' | ')}, … } or an LlmAdapter, got provider ${JSON.stringify(provider)}`,
    );
  }
  assertKnownOptionKeys(
    place.moduleName,
    options,
    KEYS[provider as keyof typeof KEYS],
    `${place.option}.`,
  );
  const named = options as Exclude<LlmOptions, AiSdkModelOptions>;
  switch (named.provider) {
    case 'openai':
      assertCallSettings(named, place, true);
      if (named.api !== undefined && named.api !== 'chat' && named.api !== 'responses')
        fail(
          `${place.option}.api`,
          `must be 'chat' or 'responses', got ${JSON.stringify(named.api)}`,
        );
      return lazyAdapter(openAiModel(named, env), named, 'openai', named.model);
    case 'anthropic':
      assertCallSettings(named, place, true);
      return lazyAdapter(anthropicModel(named, env), named, 'anthropic', named.model);
    case 'openai-compatible':
      assertCallSettings(named, place, true);
      if (typeof named.baseUrl !== 'string' || !/^https?:\/\//.test(named.baseUrl))
        fail(
          `${place.option}.baseUrl`,
          'must be the server’s http(s) URL, e.g. http://127.0.0.1:11434/v1',
        );
      return lazyAdapter(
        openAiCompatibleModel(named),
        named,
        named.name ?? 'openai-compatible',
        named.model,
      );
    case 'echo':
      if (named.toolCommands !== undefined && typeof named.toolCommands !== 'boolean')
        fail(`${place.option}.toolCommands`, 'must be true or false');
      return new EchoLlmAdapter(named);
    default:
      return fail(place.option, 'has an unknown provider');
  }
}

function aiSdkAdapter(options: AiSdkModelOptions, place: LlmOptionsPlace): LlmAdapter {
  assertKnownOptionKeys(place.moduleName, options, ['model', ...CALL_KEYS], `${place.option}.`);
  assertCallSettings(options, place, false);
  try {
    checkedModel(options.model);
  } catch (error) {
    if (error instanceof InvalidArgumentError)
      throw new InvalidModuleOptionsError(place.moduleName, `${place.option}.model`, error.problem);
    throw error;
  }
  const { model, ...settings } = options;
  return new AiSdkLlmAdapter(model, settings);
}

function lazyAdapter(
  model: ReturnType<typeof openAiModel>,
  settings: LlmCallSettings,
  provider: string,
  modelName: string,
): LlmAdapter {
  const { timeoutMs, streamIdleTimeoutMs, retry, temperature, maxTokens, providerOptions } =
    settings;
  return new AiSdkLlmAdapter(
    model,
    { timeoutMs, streamIdleTimeoutMs, retry, temperature, maxTokens, providerOptions },
    { provider, model: modelName },
  );
}

/** Checks an adapter's call settings at bootstrap, naming the bad one. */
function assertCallSettings(
  options: LlmCallSettings & { model?: unknown; baseUrl?: unknown; apiKey?: unknown },
  place: LlmOptionsPlace,
  namedModel: boolean,
): void {
  const fail = (option: string, problem: string): never => {
    throw new InvalidModuleOptionsError(place.moduleName, `${place.option}.${option}`, problem);
  };
  if (namedModel && (typeof options.model !== 'string' || options.model.length === 0))
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
    if (options[name] !== undefined && typeof options[name] !== 'string')
      fail(name, 'must be a string');
  }
  if (typeof options.baseUrl === 'string' && !/^https?:\/\/[^/]/.test(options.baseUrl))
    fail('baseUrl', 'must be an http(s) URL');
  const providerOptions = options.providerOptions as unknown;
  if (
    providerOptions !== undefined &&
    (typeof providerOptions !== 'object' ||
      providerOptions === null ||
      Array.isArray(providerOptions))
  )
    fail('providerOptions', 'must be an object keyed by provider');
}

/** True for an object that implements `LlmAdapter`. */
export function isLlmAdapter(value: unknown): value is LlmAdapter {
  return (
    typeof (value as LlmAdapter | null)?.chat === 'function' &&
    typeof (value as LlmAdapter).stream === 'function'
  );
}
