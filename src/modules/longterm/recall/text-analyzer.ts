import { Logger } from '@nestjs/common';
import porter2 from 'wink-porter2-stemmer';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import {
  MAX_INDEXED_WORDS,
  MAX_QUERY_WORDS,
  MAX_WORD_LENGTH,
  allQueryWords,
  words,
} from './search-text.js';

/** A stemmer: one normalized word (lower case, accents folded) to the form it is indexed under. */
export type StemFunction = (word: string) => string;

/**
 * How text becomes search terms — at index time and at query time alike, on every backend
 * (`LongtermMemoryModule.forRoot({ textSearch })`).
 */
export interface TextAnalysisOptions {
  /**
   * `'english'` (default): English words (ASCII letters) are also indexed and searched under their
   * Porter2 stem (the Snowball English stemmer, as PostgreSQL's `english` configuration), so "works"
   * finds "work" and "lived" finds "lives"; words of other scripts and words holding digits are
   * left as they are. `'none'`: words only. Or your own synchronous function (any language), called
   * with each normalized word; its answer is normalized the same way (letters and digits only; an
   * empty answer keeps the word). It is tried once at bootstrap; a word it throws on later is kept
   * as it is (logged once), at save and at search alike.
   */
  stemmer?: 'english' | 'none' | StemFunction;
  /**
   * Words a query does not search by (the index keeps them): question and function words, so
   * "where did she work?" searches "work". Default {@link ENGLISH_QUERY_STOP_WORDS}; `[]` searches
   * every word. A query made of stop words only searches them all.
   */
  queryStopWords?: readonly string[];
}

/**
 * English question and function words a query does not search by: they are in nearly every text,
 * so they only add noise to a ranking (BM25 weighs them little, but not nothing). Words that are
 * also names, months or content ("may", "will", "can", "us") are not among them.
 */
export const ENGLISH_QUERY_STOP_WORDS: readonly string[] = Object.freeze(
  (
    'a about am an and any are as at be been being but by could d did do does doing done for from ' +
    'had has have having he her hers him his how i if in into is it its ll m me might my of on or ' +
    'our ours re s she should so some than that the their theirs them then there these they this ' +
    'those t to ve was we were what when where which who whom whose why with would you your yours'
  ).split(' '),
);

/** Why a search by words is refused when text search is off. */
export const TEXT_SEARCH_OFF =
  'cannot be searched by words: text search is off for this store (LongtermMemoryModule textSearch: false)';

/** Most stems remembered (a word's stem is computed once while it stays among them). */
const STEM_CACHE_SIZE = 20_000;
const ENGLISH_WORD = /^[a-z]+$/;

/**
 * Turns text into the terms every backend indexes and searches: the words of `words()` (case and
 * accents folded), each followed by its stem when the stem differs. A query searches its words
 * other than stop words, and their stems; a record holding the exact word therefore ranks above one
 * holding only another form of it. Rows indexed before stemming hold words only and are still found
 * by them.
 */
export class TextAnalyzer {
  /** The default analysis: English stems, English query stop words. */
  static readonly english = new TextAnalyzer();
  /**
   * Text search off (`textSearch: false`): records are saved without indexed words (no text is
   * made for the index), and a search by words is refused (`InvalidArgumentError`).
   */
  static readonly off = new TextAnalyzer(false);

  /** Whether records' words are indexed and searched (false for {@link TextAnalyzer.off}). */
  readonly enabled: boolean;
  private readonly stemWord: StemFunction | undefined;
  private readonly stopWords: ReadonlySet<string>;
  private readonly stems = new Map<string, string>();
  private warned = false;

  /** @param options how text becomes terms; `false`: text search off (prefer {@link TextAnalyzer.off}) */
  constructor(options: TextAnalysisOptions | false = {}) {
    this.enabled = options !== false;
    if (options === false) {
      this.stemWord = undefined;
      this.stopWords = new Set();
      return;
    }
    this.stemWord = resolveStemmer(options.stemmer ?? 'english');
    const stopWords = options.queryStopWords ?? ENGLISH_QUERY_STOP_WORDS;
    if (!Array.isArray(stopWords) || stopWords.some((word) => typeof word !== 'string'))
      throw new InvalidArgumentError('textSearch.queryStopWords', 'must be an array of strings');
    this.stopWords = new Set(stopWords.flatMap((word) => words(word)));
  }

  /**
   * The indexed form of a record's text: its first words, each followed by its stem if other (`''`
   * with text search off).
   */
  indexedText(text: string): string {
    if (!this.enabled) return '';
    const all = words(text);
    const kept = all.length > MAX_INDEXED_WORDS ? all.slice(0, MAX_INDEXED_WORDS) : all;
    return this.withStems(kept).join(' ');
  }

  /**
   * The terms a query searches (validated as `queryWords`): its distinct words but stop words (all
   * of them when nothing else is left), each followed by its stem if other, without repeats.
   */
  queryTerms(query: unknown): string[] {
    if (!this.enabled) throw new InvalidArgumentError('query', TEXT_SEARCH_OFF);
    const all = allQueryWords(query);
    const content = all.filter((word) => !this.stopWords.has(word));
    const searched = (content.length > 0 ? content : all).slice(0, MAX_QUERY_WORDS);
    // A stem that is a stop word ("willing" → "will") would match nearly every record.
    const stopStems = content.length > 0 ? this.stopWords : new Set<string>();
    return [...new Set(this.withStems(searched, stopStems))];
  }

  /** Whether a text holds any of the terms (a staged record's match, in process). */
  matches(text: string, terms: ReadonlySet<string>): boolean {
    return this.withStems(words(text)).some((term) => terms.has(term));
  }

  private withStems(list: readonly string[], skip?: ReadonlySet<string>): string[] {
    if (!this.stemWord) return [...list];
    const out: string[] = [];
    for (const word of list) {
      out.push(word);
      const stem = this.stemOf(word);
      if (stem !== word && !skip?.has(stem)) out.push(stem);
    }
    return out;
  }

  private stemOf(word: string): string {
    let stem = this.stems.get(word);
    if (stem !== undefined) return stem;
    stem = normalizeStem(this.callStemmer(word), word);
    if (this.stems.size >= STEM_CACHE_SIZE) this.stems.clear();
    this.stems.set(word, stem);
    return stem;
  }

  /** The stemmer's answer for a word; a throw keeps the word (the same at save and at search). */
  private callStemmer(word: string): unknown {
    try {
      return this.stemWord!(word);
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        new Logger('TextAnalyzer').warn(
          `textSearch.stemmer threw on a word, which is indexed and searched as it is: ${(error as Error).message}`,
        );
      }
      return word;
    }
  }
}

/**
 * Checks a custom stemmer once, when its analyzer is built (at bootstrap): it answers a string for
 * a word, synchronously, without throwing; else the problem, in words.
 */
export function stemmerProblem(stemmer: StemFunction): string | undefined {
  let answer: unknown;
  try {
    answer = stemmer('running');
  } catch (error) {
    return `threw on "running": ${(error as Error).message}`;
  }
  if (typeof answer !== 'string')
    return `must answer a string synchronously, got ${answer instanceof Promise ? 'a Promise' : typeof answer} for "running"`;
  return undefined;
}

/** The stemmer an option names, validated. */
function resolveStemmer(option: unknown): StemFunction | undefined {
  if (option === 'none') return undefined;
  if (option === 'english')
    return (word) => (ENGLISH_WORD.test(word) && word.length > 2 ? porter2(word) : word);
  if (typeof option === 'function') {
    const problem = stemmerProblem(option as StemFunction);
    if (problem) throw new InvalidArgumentError('textSearch.stemmer', problem);
    return option as StemFunction;
  }
  throw new InvalidArgumentError(
    'textSearch.stemmer',
    `must be 'english', 'none' or a function, got ${typeof option === 'string' ? `'${option}'` : typeof option}`,
  );
}

/** A stemmer's answer as one term: letters and digits only, cut like a word; else the word. */
function normalizeStem(stem: unknown, word: string): string {
  if (typeof stem !== 'string') return word;
  const joined = words(stem).join('');
  if (joined.length === 0) return word;
  return joined.length > MAX_WORD_LENGTH ? [...joined].slice(0, MAX_WORD_LENGTH).join('') : joined;
}

const analyzers = new WeakMap<TextAnalysisOptions, TextAnalyzer>();

/**
 * The analyzer of a module's `textSearch` option: one per options object, English when unset,
 * {@link TextAnalyzer.off} for `false`.
 */
export function analyzerFor(options: TextAnalysisOptions | false | undefined): TextAnalyzer {
  if (options === undefined) return TextAnalyzer.english;
  if (options === false) return TextAnalyzer.off;
  let analyzer = analyzers.get(options);
  if (!analyzer) analyzers.set(options, (analyzer = new TextAnalyzer(options)));
  return analyzer;
}
