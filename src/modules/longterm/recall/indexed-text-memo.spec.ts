import { describe, expect, it } from '@jest/globals';
import { IndexedTextMemo, MEMO_MAX_SOURCE_LENGTH, MEMO_RECORDS } from './indexed-text-memo.js';

/** An analysis that counts its calls. */
function counted() {
  const calls: string[] = [];
  return {
    calls,
    analyze: (text: string) => {
      calls.push(text);
      return text.toUpperCase();
    },
  };
}

describe('IndexedTextMemo', () => {
  it('analyzes a record again only when its source changes', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    expect(memo.indexedText('e', 'k', 'one', analyze)).toBe('ONE');
    expect(memo.indexedText('e', 'k', 'one', analyze)).toBe('ONE');
    expect(memo.indexedText('e', 'k', 'two', analyze)).toBe('TWO');
    expect(memo.indexedText('e', 'k', 'one', analyze)).toBe('ONE');
    expect(calls).toEqual(['one', 'two', 'one']);
  });

  it('keeps records apart: by entity and by key, with no pair taken for another', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    memo.indexedText('e1', 'k', 'same', analyze);
    memo.indexedText('e2', 'k', 'same', analyze);
    memo.indexedText('e1', 'k2', 'same', analyze);
    memo.indexedText('e', '1\u0001k', 'same', analyze);
    memo.indexedText('e\u00011', 'k', 'same', analyze);
    expect(calls).toHaveLength(5);
  });

  it('makes the text from the source only when it analyzes', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    let made = 0;
    const text = () => `text ${++made}`;
    expect(memo.indexedText('e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 1');
    expect(memo.indexedText('e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 1');
    expect(memo.indexedText('e', 'k', '{"a":2}', analyze, text)).toBe('TEXT 2');
    expect([made, calls]).toEqual([2, ['text 1', 'text 2']]);
  });

  it(`analyzes sources over ${MEMO_MAX_SOURCE_LENGTH} characters every time`, () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    const long = 'x'.repeat(MEMO_MAX_SOURCE_LENGTH + 1);
    memo.indexedText('e', 'k', long, analyze);
    memo.indexedText('e', 'k', long, analyze);
    expect(calls).toHaveLength(2);
  });

  it(`remembers between ${MEMO_RECORDS} and twice as many records, the recent ones kept`, () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    const save = (i: number) => memo.indexedText('e', `k${i}`, `text ${i}`, analyze);
    // One more than a generation holds: the first ones move to the older generation.
    for (let i = 0; i <= MEMO_RECORDS; i += 1) save(i);
    save(0); // found in the older generation, and moved to the newer one
    for (let i = MEMO_RECORDS + 1; i <= 2 * MEMO_RECORDS; i += 1) save(i);
    calls.length = 0;
    save(0); // moved on: it outlived the generation it was in
    save(2 * MEMO_RECORDS - 5);
    expect(calls).toEqual([]);
    save(1); // dropped with its generation
    expect(calls).toEqual(['text 1']);
  });
});
