import { describe, expect, it } from '@jest/globals';
import { countTokens } from 'gpt-tokenizer';
import { slicedTokenCount } from '../../src/modules/memory-provider/providers/sliced-token-count.js';

describe('token counts a slice at a time', () => {
  it('gives the tokenizer at most 1,000 characters at once, however long a run without spaces', () => {
    const slices: string[] = [];
    const blob = 'y'.repeat(20_500);
    const total = slicedTokenCount(blob, (slice) => {
      slices.push(slice);
      return countTokens(slice);
    });
    expect(Math.max(...slices.map((slice) => slice.length))).toBeLessThanOrEqual(1_000);
    expect(slices.join('')).toBe(blob);
    expect(total).toBeGreaterThan(0);
  });

  it('counts ordinary text exactly (cuts fall on spaces, where the tokenizer splits words)', () => {
    const texts = [
      'The quick brown fox jumps over the lazy dog. '.repeat(400),
      'Zoë’s café — naïve résumé, 東京で会いましょう! '.repeat(300),
      'function add(a, b) {\n  return a + b;\n}\n'.repeat(200),
    ];
    for (const text of texts) expect(slicedTokenCount(text, countTokens)).toBe(countTokens(text));
  });

  it('never cuts a surrogate pair', () => {
    const emoji = '😀'.repeat(1_200); // no spaces: cut by length
    const slices: string[] = [];
    slicedTokenCount(emoji, (slice) => {
      slices.push(slice);
      return 1;
    });
    for (const slice of slices) expect(slice).toMatch(/^(?:😀)+$/u);
  });
});

describe('token counts that stop past a budget', () => {
  it('stops once the total passes it, and reports more than it', () => {
    let slices = 0;
    const total = slicedTokenCount(
      'word '.repeat(100_000),
      (slice) => {
        slices += 1;
        return countTokens(slice);
      },
      500,
    );
    expect(total).toBeGreaterThan(500);
    expect(slices).toBeLessThan(5);
  });
});
