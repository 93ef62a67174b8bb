import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import {
  type AiSdkLanguageModel,
  type CallableModel,
  SUPPORTED_SPECIFICATIONS,
  isAiSdkLanguageModel,
} from './ai-sdk-language-model.js';

/**
 * The model, once checked to be an AI SDK language model of a specification the adapter speaks;
 * otherwise an `InvalidArgumentError` that says what was given and what to give instead.
 */
export function checkedModel(model: unknown, argument = 'model'): CallableModel {
  if (typeof model === 'string') {
    throw new InvalidArgumentError(
      argument,
      `must be a language model instance such as ${instanceFor(model)}, not the id "${model}" (ids resolve through the AI SDK's gateway, which the adapter does not use)`,
    );
  }
  if (!isAiSdkLanguageModel(model)) {
    throw new InvalidArgumentError(
      argument,
      'must be an AI SDK language model (an object with specificationVersion, doGenerate and doStream)',
    );
  }
  const version = (model as AiSdkLanguageModel).specificationVersion;
  if (!(SUPPORTED_SPECIFICATIONS as readonly string[]).includes(version)) {
    throw new InvalidArgumentError(
      argument,
      `speaks the AI SDK provider specification ${JSON.stringify(version)}; supported: ${SUPPORTED_SPECIFICATIONS.join(', ')} (AI SDK 5, 6 and 7)`,
    );
  }
  return model as unknown as CallableModel;
}

/** Gateway prefixes whose provider package is `@ai-sdk/<prefix>`, exporting a factory of that name. */
const PROVIDERS = new Set([
  'openai',
  'anthropic',
  'google',
  'xai',
  'mistral',
  'groq',
  'deepseek',
  'cohere',
  'perplexity',
]);

/**
 * The instance to write for a gateway id: `anthropic/claude-sonnet-4` →
 * `anthropic('claude-sonnet-4') from @ai-sdk/anthropic`; an id of another provider, or without
 * one, gets the OpenAI form as an example.
 */
function instanceFor(id: string): string {
  const slash = id.indexOf('/');
  const provider = id.slice(0, Math.max(slash, 0));
  if (PROVIDERS.has(provider)) {
    const name = id.slice(slash + 1);
    return `${provider}('${name}') from @ai-sdk/${provider}`;
  }
  return `openai('${slash > 0 ? 'gpt-4o' : id}') from @ai-sdk/openai (or your provider's package)`;
}
