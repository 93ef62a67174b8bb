import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { assertEntityId } from '../../longterm/validation/longterm-arguments.js';

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

/**
 * Throws `InvalidArgumentError` naming `entityId` when a run names one that no store takes (not a
 * string of 1–255 UTF-8 bytes without U+0000; `null` and an empty string included): an empty id
 * would otherwise run the turn without the person's memory, silently. `undefined`: a run without
 * long-term memory. Checked where a run comes in (run, stream, submit, reserveRun), not when a
 * queued job runs, so a job queued by an earlier version with an empty id runs as it did.
 */
export function assertRunEntityId(entityId: unknown): void {
  if (entityId !== undefined) assertEntityId(entityId);
}
