import { InvalidArgumentError } from '../errors/invalid-argument.error.js';

/**
 * A message (or the batch holding it) is malformed: unknown role, a `tool` message without
 * `toolCallId`, a duplicate id within one batch, U+0000 in a string, …. Thrown before any I/O.
 */
export class InvalidMessageError extends InvalidArgumentError {}

/** What a message holding U+0000 anywhere (text, metadata, provider data) is told. */
export const NUL_IN_STRING =
  'a string holds U+0000, refused on every backend (PostgreSQL cannot store it)';
