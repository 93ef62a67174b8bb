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
      `must be a language model instance such as openai('${model}') from @ai-sdk/openai, not the id "${model}" (ids resolve through the AI SDK's gateway, which the adapter does not use)`,
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
