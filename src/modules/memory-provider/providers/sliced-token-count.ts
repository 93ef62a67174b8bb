/** Longest slice of text given to a tokenizer at once. */
const SLICE = 1_000;

/**
 * Counts the tokens of `text` a slice of at most 1,000 characters at a time, each cut at a space
 * where there is one. A BPE tokenizer's cost grows with the square of a word's length (200,000
 * repeated characters take gpt-tokenizer 23 s; sliced, 50 ms), so a pasted blob cannot stall the
 * process. Cuts at spaces match how the tokenizer splits words (a space starts the next one), so
 * ordinary text counts exactly; a run without spaces is off by at most one token per slice. With
 * `stopAbove`, counting stops once the total passes it (the count returned is then only known to
 * be above it), so a huge text costs no more than the budget it is checked against.
 */
export function slicedTokenCount(
  text: string,
  count: (slice: string) => number,
  stopAbove = Infinity,
): number {
  let total = 0;
  for (let start = 0; start < text.length && total <= stopAbove;) {
    let end = Math.min(text.length, start + SLICE);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
      // Never between the halves of a surrogate pair.
      else if (/[\ud800-\udbff]/.test(text[end - 1]!)) end -= 1;
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}
