import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';

/** What a run id may be: 1–200 characters of letters, digits and `_ - . : @` (a UUID fits). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,200}$/;

/** Throws `InvalidArgumentError` naming `runId` unless it matches {@link RUN_ID_PATTERN}. */
export function assertRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string' || !RUN_ID_PATTERN.test(runId))
    throw new InvalidArgumentError(
      'runId',
      'must be 1–200 characters of letters, digits and _ - . : @',
    );
}
