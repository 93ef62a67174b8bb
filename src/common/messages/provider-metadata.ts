import { InvalidMessageError, NUL_IN_STRING } from './invalid-message.error.js';

/**
 * What a provider attached to part of an answer and needs back with it (Anthropic's thinking
 * signature, OpenAI's Responses item ids, Gemini's thought signatures), keyed by provider: stored as
 * given and sent back as the AI SDK's `providerOptions`.
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/**
 * A checked, plain JSON copy of provider metadata: an object of objects. The copy is what is
 * checked and stored, so a getter or `toJSON` cannot change it after the check.
 */
export function copyProviderMetadata(value: unknown, path: string): ProviderMetadata {
  const fail = (): never => {
    throw new InvalidMessageError(path, 'must be an object of objects (per provider), JSON only');
  };
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    fail();
  }
  if (!isObject(copy)) fail();
  for (const inner of Object.values(copy as object)) if (!isObject(inner)) fail();
  if (JSON.stringify(copy).includes('\\u0000')) throw new InvalidMessageError(path, NUL_IN_STRING);
  return copy as ProviderMetadata;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
