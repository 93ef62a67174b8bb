import { fetchWithoutRedirects } from '../../../common/fetch-without-redirects.js';
import { loadOptionalDependency } from '../../../common/load-optional-dependency.js';
import type {
  AnthropicLlmOptions,
  OpenAiCompatibleLlmOptions,
  OpenAiLlmOptions,
} from '../llm-options.js';
import type { AiSdkLanguageModel } from './ai-sdk-language-model.js';

type Env = Record<string, string | undefined>;
type ProviderFactory = (settings: Record<string, unknown>) => {
  (modelId: string): AiSdkLanguageModel;
  chat?(modelId: string): AiSdkLanguageModel;
  responses?(modelId: string): AiSdkLanguageModel;
  chatModel?(modelId: string): AiSdkLanguageModel;
};

/** The default OpenAI endpoint. */
const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** The default Anthropic origin (`/v1` is added). */
const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** `provider: 'openai'`: `@ai-sdk/openai`'s Chat Completions model (or Responses, by `api`). */
export async function openAiModel(
  options: OpenAiLlmOptions,
  env: Env,
): Promise<AiSdkLanguageModel> {
  const { createOpenAI } = await loadOptionalDependency<{ createOpenAI: ProviderFactory }>(
    '@ai-sdk/openai',
    "llm: { provider: 'openai' }",
  );
  const provider = createOpenAI({
    baseURL: trimSlashes(options.baseUrl ?? env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL),
    // A local server may need no key: send an empty one rather than fail on a missing variable.
    apiKey: options.apiKey ?? env.OPENAI_API_KEY ?? '',
    fetch: fetchWithoutRedirects,
  });
  return options.api === 'responses'
    ? provider.responses!(options.model)
    : provider.chat!(options.model);
}

/** `provider: 'anthropic'`: `@ai-sdk/anthropic`'s Messages model. */
export async function anthropicModel(
  options: AnthropicLlmOptions,
  env: Env,
): Promise<AiSdkLanguageModel> {
  const { createAnthropic } = await loadOptionalDependency<{ createAnthropic: ProviderFactory }>(
    '@ai-sdk/anthropic',
    "llm: { provider: 'anthropic' }",
  );
  const provider = createAnthropic({
    baseURL: `${trimSlashes(options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL)}/v1`,
    apiKey: options.apiKey ?? env.ANTHROPIC_API_KEY ?? '',
    ...(options.apiVersion ? { headers: { 'anthropic-version': options.apiVersion } } : {}),
    fetch: fetchWithoutRedirects,
  });
  return provider(options.model);
}

/** `provider: 'openai-compatible'`: `@ai-sdk/openai-compatible`'s chat model at `baseUrl`. */
export async function openAiCompatibleModel(
  options: OpenAiCompatibleLlmOptions,
): Promise<AiSdkLanguageModel> {
  const { createOpenAICompatible } = await loadOptionalDependency<{
    createOpenAICompatible: ProviderFactory;
  }>('@ai-sdk/openai-compatible', "llm: { provider: 'openai-compatible' }");
  const provider = createOpenAICompatible({
    name: options.name ?? 'openai-compatible',
    baseURL: trimSlashes(options.baseUrl),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    includeUsage: true,
    fetch: fetchWithoutRedirects,
  });
  return provider.chatModel!(options.model);
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}
