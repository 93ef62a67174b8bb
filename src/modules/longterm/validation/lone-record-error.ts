import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { ValueTooLargeError } from '../../../common/errors/value-too-large.error.js';

const FIRST_ROW = 'records[0]';

/**
 * Rethrows an error of a one-row batch that `save` wrote through `saveMany`, an argument error
 * named as the lone record it was (`record.value`, not `records[0].value`: the caller sent no
 * batch). Any other error is rethrown as it is.
 */
export function throwAsLoneRecord(error: unknown): never {
  if (!(error instanceof InvalidArgumentError) || !error.argument.startsWith(FIRST_ROW))
    throw error;
  const argument = `record${error.argument.slice(FIRST_ROW.length)}`;
  if (error instanceof ValueTooLargeError)
    throw new ValueTooLargeError(argument, error.sizeBytes, error.maxBytes);
  if (error.constructor !== InvalidArgumentError) throw error;
  throw new InvalidArgumentError(argument, error.problem);
}
