import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import {
  type TextSearchOptions,
  MAX_TEXT_SEARCH_LIMIT,
} from '../interfaces/longterm-store.interface.js';
import { assertPrefix } from '../validation/longterm-arguments.js';
import { prefixUpperBound } from '../validation/prefix-range.js';
import { TextAnalyzer } from './text-analyzer.js';

/** A validated text search, as a backend runs it. */
export interface TextMatch {
  /** The query's distinct search terms (at least one): see `TextAnalyzer.queryTerms`. */
  words: string[];
  /** Most rows. */
  limit: number;
  /** Only keys ≥ lower and (if set) < upper: the prefix range ('' and none: every key). */
  lower: string;
  upper: string | undefined;
  /** Only rows with updatedFrom ≤ updatedAt < updatedTo. */
  updatedFrom: number;
  updatedTo: number;
}

/** Validates a text search's query and options, before any I/O. */
export function textMatch(
  query: string,
  options: TextSearchOptions,
  analyzer: TextAnalyzer = TextAnalyzer.english,
): TextMatch {
  const words = analyzer.queryTerms(query);
  if (typeof options !== 'object' || options === null)
    throw new InvalidArgumentError('options', 'must be an object');
  const { limit = DEFAULT_TEXT_SEARCH_LIMIT, prefix = '', updatedFrom, updatedTo } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TEXT_SEARCH_LIMIT)
    throw new InvalidArgumentError(
      'limit',
      `must be an integer from 1 to ${MAX_TEXT_SEARCH_LIMIT}, got ${String(limit)}`,
    );
  assertPrefix(prefix);
  for (const [name, time] of [
    ['updatedFrom', updatedFrom],
    ['updatedTo', updatedTo],
  ] as const)
    if (time !== undefined && (!Number.isSafeInteger(time) || time < 0))
      throw new InvalidArgumentError(name, `must be epoch ms, got ${String(time)}`);
  return {
    words,
    limit,
    lower: prefix,
    upper: prefix === '' ? undefined : prefixUpperBound(prefix),
    updatedFrom: updatedFrom ?? 0,
    updatedTo: updatedTo ?? NEVER,
  };
}

/** Default `limit` of a text search. */
const DEFAULT_TEXT_SEARCH_LIMIT = 10;
const NEVER = Number.MAX_SAFE_INTEGER;

/** Whether a search filters by update time (not the defaults: from 0, to never). */
export function filtersByTime(match: Pick<TextMatch, 'updatedFrom' | 'updatedTo'>): boolean {
  return match.updatedFrom !== 0 || match.updatedTo !== NEVER;
}

/**
 * The key-range and time-range parameters of a search, in the order the SQL stores bind them:
 * lower, upper, upper (`NULL` twice when there is none: `? IS NULL OR key < ?`), updatedFrom,
 * updatedTo.
 */
export function rangeParams(
  match: Pick<TextMatch, 'lower' | 'upper' | 'updatedFrom' | 'updatedTo'>,
): [string, string | null, string | null, number, number] {
  const upper = match.upper ?? null;
  return [match.lower, upper, upper, match.updatedFrom, match.updatedTo];
}
