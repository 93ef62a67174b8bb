import { describe, expect, it } from '@jest/globals';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { tsvectorLiteral, writeParameters } from './postgres-write-columns.js';
import { NEVER_EXPIRES } from './sql-row-format.js';

describe('tsvectorLiteral', () => {
  it('quotes each word once with its positions, in first-seen order', () => {
    expect(tsvectorLiteral('cat sat on the cat mat cat')).toBe(
      "'cat':1,5,7 'sat':2 'on':3 'the':4 'mat':6",
    );
    expect(tsvectorLiteral('')).toBe('');
  });

  it('keeps at most 256 positions of a word, and writes positions past 16,383 as 16,383', () => {
    const literal = tsvectorLiteral(Array.from({ length: 300 }, () => 'w').join(' '));
    expect(literal.split(',')).toHaveLength(256);
    expect(literal.endsWith(':256') || literal.endsWith(',256')).toBe(true);
    const far = [...Array.from({ length: 20_000 }, (_, i) => `x${i}`), 'late'].join(' ');
    expect(tsvectorLiteral(far).endsWith("'late':16383")).toBe(true);
  });
});

describe('writeParameters', () => {
  const row = (entityId: string, key: string): PreparedRecord => ({
    entityId,
    key,
    value: '1',
    seq: 3,
    updatedAt: 5,
    expiresAt: null,
    text: 'one',
    embedding: null,
  });

  it('sends the columns, now, and each distinct entity once, last', () => {
    const params = writeParameters([row('a', 'k1'), row('b', 'k2'), row('a', 'k3')], 99, false);
    expect(params).toEqual([
      ['a', 'b', 'a'],
      ['k1', 'k2', 'k3'],
      ['1', '1', '1'],
      [3, 3, 3],
      [5, 5, 5],
      [NEVER_EXPIRES, NEVER_EXPIRES, NEVER_EXPIRES],
      ["'one':1", "'one':1", "'one':1"],
      [null, null, null],
      [null, null, null],
      99,
      ['a', 'b'],
    ]);
    expect(writeParameters([row('a', 'k1')], 1, true)).toHaveLength(12);
  });
});
