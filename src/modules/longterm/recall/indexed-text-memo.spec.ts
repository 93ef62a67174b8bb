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
  it('remembers a record from its second save, and analyzes it again when its source changes', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    for (const source of ['one', 'one', 'one', 'two', 'two', 'one'])
      expect(memo.indexedText('e', 'k', source, analyze)).toBe(source.toUpperCase());
    expect(calls).toEqual(['one', 'one', 'two', 'one']);
  });

  it('does not let records saved once (an import) push out the ones saved again', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    memo.indexedText('e', 'kept', 'text', analyze);
    memo.indexedText('e', 'kept', 'text', analyze);
    for (let i = 0; i < 5 * MEMO_RECORDS; i += 1) memo.indexedText('e', `once${i}`, 'x', analyze);
    calls.length = 0;
    memo.indexedText('e', 'kept', 'text', analyze);
    expect(calls).toEqual([]);
  });

  it('keeps records apart: by entity and by key, with no pair taken for another', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    memo.indexedText('e1', 'k', 'same', analyze);
    memo.indexedText('e1', 'k', 'same', analyze); // remembered
    calls.length = 0;
    for (const [entity, key] of [
      ['e2', 'k'],
      ['e1', 'k2'],
      ['e', '1\u0000k'],
      ['e1\u0000', 'k'],
    ])
      memo.indexedText(entity!, key!, 'same', analyze);
    memo.indexedText('e1', 'k', 'same', analyze);
    expect(calls).toHaveLength(4);
  });

  it('makes the text from the source only when it analyzes', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    let made = 0;
    const text = () => `text ${++made}`;
    memo.indexedText('e', 'k', '{"a":1}', analyze, text); // seen once: not remembered
    expect(memo.indexedText('e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 2');
    expect(memo.indexedText('e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 2');
    expect(memo.indexedText('e', 'k', '{"a":2}', analyze, text)).toBe('TEXT 3');
    expect([made, calls]).toEqual([3, ['text 1', 'text 2', 'text 3']]);
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
    // Each saved twice: remembered from its second save.
    for (let i = 0; i <= 2 * MEMO_RECORDS; i += 1) memo.indexedText('e', `k${i}`, 'first', analyze);
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
