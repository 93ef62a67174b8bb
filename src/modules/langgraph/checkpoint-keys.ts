import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';

/** Longest thread id, namespace, checkpoint id or task id, in UTF-8 bytes. */
export const MAX_CHECKPOINT_KEY_BYTES = 255;

/**
 * Checks one identifier a checkpoint is stored under, before any I/O: a string (the empty string
 * only where `allowEmpty`, as for the root namespace) of at most {@link MAX_CHECKPOINT_KEY_BYTES}
 * UTF-8 bytes without U+0000 (which PostgreSQL text cannot hold, so no backend takes it).
 */
export function checkpointKey(field: string, value: unknown, allowEmpty = false): string {
  if (typeof value !== 'string')
    throw new InvalidArgumentError(
      field,
      `must be a string, got ${value === null ? 'null' : typeof value}`,
    );
  if (value === '' && !allowEmpty) throw new InvalidArgumentError(field, 'must not be empty');
  if (value.includes('\u0000')) throw new InvalidArgumentError(field, 'must not contain U+0000');
  if (Buffer.byteLength(value, 'utf8') > MAX_CHECKPOINT_KEY_BYTES)
    throw new InvalidArgumentError(
      field,
      `must be at most ${MAX_CHECKPOINT_KEY_BYTES} UTF-8 bytes`,
    );
  return value;
}
