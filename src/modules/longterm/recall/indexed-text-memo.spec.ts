import { describe, expect, it } from '@jest/globals';
import {
  IndexedTextMemo,
  MEMO_MAX_INDEXED_LENGTH,
  MEMO_MAX_SOURCE_LENGTH,
  MEMO_RECORDS,
} from './indexed-text-memo.js';

/** What a save does with the memo: recall, else analyze the text and remember the answer. */
function indexedText(
  memo: IndexedTextMemo,
  entityId: string,
  key: string,
  source: string,
  analyze: (text: string) => string,
  text: () => string = () => source,
): string {
  const remembered = memo.recall(entityId, key, source);
  if (remembered !== undefined) return remembered;
  const indexed = analyze(text());
  memo.remember(entityId, key, source, indexed);
  return indexed;
}

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
      expect(indexedText(memo, 'e', 'k', source, analyze)).toBe(source.toUpperCase());
    expect(calls).toEqual(['one', 'one', 'two', 'one']);
  });

  it('does not let records saved once (an import) push out the ones saved again', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    indexedText(memo, 'e', 'kept', 'text', analyze);
    indexedText(memo, 'e', 'kept', 'text', analyze);
    for (let i = 0; i < 5 * MEMO_RECORDS; i += 1) indexedText(memo, 'e', `once${i}`, 'x', analyze);
    calls.length = 0;
    indexedText(memo, 'e', 'kept', 'text', analyze);
    expect(calls).toEqual([]);
  });

  it('keeps records apart: by entity and by key, with no pair taken for another', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    indexedText(memo, 'e1', 'k', 'same', analyze);
    indexedText(memo, 'e1', 'k', 'same', analyze); // remembered
    calls.length = 0;
    for (const [entity, key] of [
      ['e2', 'k'],
      ['e1', 'k2'],
      ['e', '1\u0000k'],
      ['e1\u0000', 'k'],
    ])
      indexedText(memo, entity!, key!, 'same', analyze);
    indexedText(memo, 'e1', 'k', 'same', analyze);
    expect(calls).toHaveLength(4);
  });

  it('makes the text from the source only when it analyzes', () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    let made = 0;
    const text = () => `text ${++made}`;
    indexedText(memo, 'e', 'k', '{"a":1}', analyze, text); // seen once: not remembered
    expect(indexedText(memo, 'e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 2');
    expect(indexedText(memo, 'e', 'k', '{"a":1}', analyze, text)).toBe('TEXT 2');
    expect(indexedText(memo, 'e', 'k', '{"a":2}', analyze, text)).toBe('TEXT 3');
    expect([made, calls]).toEqual([3, ['text 1', 'text 2', 'text 3']]);
  });

  it(`does not remember an indexed text over ${MEMO_MAX_INDEXED_LENGTH} characters`, () => {
    const memo = new IndexedTextMemo();
    const calls: string[] = [];
    const analyze = (text: string) => {
      calls.push(text);
      return text.repeat(Math.ceil((MEMO_MAX_INDEXED_LENGTH + 1) / text.length));
    };
    for (let i = 0; i < 3; i += 1) indexedText(memo, 'e', 'k', 'short source', analyze);
    expect(calls).toHaveLength(3);
  });

  it(`analyzes sources over ${MEMO_MAX_SOURCE_LENGTH} characters every time`, () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    const long = 'x'.repeat(MEMO_MAX_SOURCE_LENGTH + 1);
    indexedText(memo, 'e', 'k', long, analyze);
    indexedText(memo, 'e', 'k', long, analyze);
    expect(calls).toHaveLength(2);
  });

  it(`remembers between ${MEMO_RECORDS} and twice as many records, the recent ones kept`, () => {
    const memo = new IndexedTextMemo();
    const { calls, analyze } = counted();
    const save = (i: number) => indexedText(memo, 'e', `k${i}`, `text ${i}`, analyze);
    // Each saved twice: remembered from its second save.
    for (let i = 0; i <= 2 * MEMO_RECORDS; i += 1)
      indexedText(memo, 'e', `k${i}`, 'first', analyze);
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
