import { describe, expect, it } from '@jest/globals';
import { checkedModel } from './checked-model.js';

describe('checkedModel: a model id string', () => {
  it.each([
    ['openai/gpt-4o', "openai('gpt-4o') from @ai-sdk/openai,"],
    ['anthropic/claude-sonnet-4', "anthropic('claude-sonnet-4') from @ai-sdk/anthropic,"],
    ['google/gemini-2.5-pro', "google('gemini-2.5-pro') from @ai-sdk/google,"],
    ['gpt-4o', "openai('gpt-4o') from @ai-sdk/openai (or your provider's package),"],
    ['meta/llama-4', "openai('gpt-4o') from @ai-sdk/openai (or your provider's package),"],
  ])('%s: says which instance to write instead', (id, instance) => {
    expect(() => checkedModel(id)).toThrow(
      `must be a language model instance such as ${instance} not the id "${id}"`,
    );
  });
});
