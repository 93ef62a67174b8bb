import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type { JsonValue } from '../interfaces/longterm-store.interface.js';

/** A record's index holds at most this many of its words (the first ones). */
export const MAX_INDEXED_WORDS = 2_000;
/** Longer words are cut to this many characters, in the index and in queries alike. */
export const MAX_WORD_LENGTH = 64;
/** A query is matched by at most this many distinct words (its first ones). */
export const MAX_QUERY_WORDS = 32;
/** Longest query, in characters. */
export const MAX_QUERY_LENGTH = 2_000;

/**
 * The text a record is found by, given its value and key (default: {@link defaultRecordText}).
 * Set per module with `LongtermMemoryModule.forRoot({ recordText })`.
 */
export type RecordTextFunction = (value: JsonValue, key: string) => string;

/**
 * The default text of a record: a string value as it is; for any other JSON value, its string
 * leaves (array items and object property values, depth first, in property order), one per line.
 * Property names, numbers and booleans are not searchable.
 */
export function defaultRecordText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  const leaves: string[] = [];
  collectStrings(value, leaves, 0);
  return leaves.join('\n');
}

/**
 * The default text of a value being saved, as `load` will return it: walks the input when it is
 * plain data (the common case, no parse); anything else (a `toJSON`, a class instance, a `Date`,
 * `undefined` properties) is read back from its canonical JSON, so only what is stored is indexed.
 */
export function defaultTextOfInput(input: unknown, canonical: string): string {
  if (typeof input === 'string') return input;
  const leaves: string[] = [];
  return collectPlainStrings(input, leaves, 0)
    ? leaves.join('\n')
    : defaultRecordText(JSON.parse(canonical) as JsonValue);
}

/** Collects string leaves of plain data; false as soon as something is not plain JSON data. */
function collectPlainStrings(value: unknown, into: string[], depth: number): boolean {
  if (typeof value === 'string') {
    into.push(value);
    return true;
  }
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return true;
  if (typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value))
    return value.every((item) => collectPlainStrings(item, into, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return false;
  return Object.values(value).every((item) => collectPlainStrings(item, into, depth + 1));
}

function collectStrings(value: unknown, into: string[], depth: number): void {
  if (typeof value === 'string') into.push(value);
  else if (depth > 64 || typeof value !== 'object' || value === null) return;
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into, depth + 1);
  else for (const item of Object.values(value)) collectStrings(item, into, depth + 1);
}

/**
 * The words of a text, the same on every backend: Unicode compatibility-decomposed (NFKD), marks
 * removed (so `é` matches `e`), lower-cased, split at every character that is not a letter or a
 * digit (`\p{L}`, `\p{N}`); each word cut to {@link MAX_WORD_LENGTH} characters. Scripts written
 * without spaces (Chinese, Japanese, Thai) are not segmented: a run of letters is one word.
 */
export function words(text: string): string[] {
  // ASCII needs no decomposition: the same words, without the cost of normalizing.
  const normalized = ASCII.test(text)
    ? text.toLowerCase()
    : text.normalize('NFKD').replace(MARKS, '').toLowerCase();
  const out: string[] = [];
  for (const word of normalized.split(NOT_WORD)) {
    if (word.length === 0) continue;
    out.push(word.length > MAX_WORD_LENGTH ? [...word].slice(0, MAX_WORD_LENGTH).join('') : word);
  }
  return out;
}

const MARKS = /\p{M}+/gu;
const ASCII = /^[\u0000-\u007f]*$/;
const NOT_WORD = /[^\p{L}\p{N}]+/u;

/**
 * The distinct words of a query (its first {@link MAX_QUERY_WORDS}), validated: a string of at most
 * {@link MAX_QUERY_LENGTH} characters that holds at least one word.
 */
export function queryWords(query: unknown): string[] {
  return allQueryWords(query).slice(0, MAX_QUERY_WORDS);
}

/** Every distinct word of a query, in order, validated as {@link queryWords} validates it. */
export function allQueryWords(query: unknown): string[] {
  if (typeof query !== 'string')
    throw new InvalidArgumentError('query', `must be a string, got ${typeof query}`);
  if (query.length > MAX_QUERY_LENGTH)
    throw new InvalidArgumentError(
      'query',
      `must be at most ${MAX_QUERY_LENGTH} characters, got ${query.length}`,
    );
  const distinct = [...new Set(words(query))];
  if (distinct.length === 0)
    throw new InvalidArgumentError('query', 'must hold at least one word (a letter or a digit)');
  return distinct;
}
