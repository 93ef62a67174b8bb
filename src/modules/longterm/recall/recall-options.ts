import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { MAX_TEXT_SEARCH_LIMIT } from '../interfaces/longterm-store.interface.js';
import type { RecallFilter, RecallMode, RecallOptions } from './recall.interface.js';

/** Default number of hits of a recall. */
export const DEFAULT_RECALL_K = 10;

const FILTER_KEYS = new Set(['prefix', 'updatedFrom', 'updatedTo']);

/** A recall's `k` and filter, checked (each filter value is checked by the search itself). */
export function recallOptions(options: RecallOptions): {
  k: number;
  filter: RecallFilter;
  mode: RecallMode;
} {
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'must be an object');
  const { k = DEFAULT_RECALL_K, filter = {}, mode = 'hybrid' } = options;
  if (!['hybrid', 'lexical', 'vector'].includes(mode))
    throw new InvalidArgumentError(
      'mode',
      `must be hybrid, lexical or vector, got ${String(mode)}`,
    );
  if (!Number.isInteger(k) || k < 1 || k > MAX_TEXT_SEARCH_LIMIT)
    throw new InvalidArgumentError(
      'k',
      `must be an integer from 1 to ${MAX_TEXT_SEARCH_LIMIT}, got ${String(k)}`,
    );
  if (typeof filter !== 'object' || filter === null)
    throw new InvalidArgumentError('filter', 'must be an object');
  for (const key of Object.keys(filter))
    if (!FILTER_KEYS.has(key))
      throw new InvalidArgumentError(
        `filter.${key}`,
        'is not a filter (prefix, updatedFrom, updatedTo)',
      );
  return { k, filter, mode };
}
