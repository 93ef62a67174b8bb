import { words } from '../longterm/recall/search-text.js';

/** Two texts whose word sets overlap at least this much (Jaccard) say the same thing. */
export const NEAR_DUPLICATE_JACCARD = 0.8;

/**
 * Words that do not change what a statement says (articles and present forms of "be"; past forms
 * stay, so "Ada was a nurse" never duplicates "Ada is a nurse").
 */
const FILLER = new Set(['a', 'an', 'the', 'is', 'are', 'am']);
/** Words that turn a statement into its opposite: a text with one never duplicates one without. */
const NEGATION = new Set(['not', 'no', 'never', 't', 'nor', 'none', 'nobody', 'nothing']);

/** The words a duplicate check compares: the package's tokenizer, without filler words. */
function meaningfulWords(text: string): Set<string> {
  return new Set(words(text).filter((word) => !FILLER.has(word)));
}

/**
 * Whether two memory texts say the same words once case, accents, punctuation, order, articles and
 * present forms of "be" are set aside.
 */
export function isSameStatement(a: string, b: string): boolean {
  const left = meaningfulWords(a);
  const right = meaningfulWords(b);
  return left.size > 0 && left.size === right.size && [...left].every((word) => right.has(word));
}

/**
 * Whether two memory texts say the same thing: the same words once case, accents, punctuation,
 * order, articles and present forms of "be" are set aside, or word sets that overlap by at least
 * {@link NEAR_DUPLICATE_JACCARD} — never when only one of them holds a negation ("not", "never", "n't"…).
 */
export function isNearDuplicate(a: string, b: string): boolean {
  const left = meaningfulWords(a);
  const right = meaningfulWords(b);
  if (left.size === 0 || right.size === 0) return false;
  const negated = (set: Set<string>) => [...set].some((word) => NEGATION.has(word));
  if (negated(left) !== negated(right)) return false;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  return shared / (left.size + right.size - shared) >= NEAR_DUPLICATE_JACCARD;
}

/** Whether a text holds at least one word a memory could be found by. */
export function hasWords(text: string): boolean {
  return meaningfulWords(text).size > 0;
}
