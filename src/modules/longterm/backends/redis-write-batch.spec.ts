import { describe, expect, it } from '@jest/globals';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { PART_CHARACTERS, indexEntry, packRows } from './redis-write-batch.js';
import { NEVER_EXPIRES } from './sql-row-format.js';

function row(i: number, value: string | null, text: string | null): PreparedRecord {
  return {
    entityId: 'e',
    key: `k${i}`,
    value,
    seq: i,
    updatedAt: 1_000 + (i % 2),
    expiresAt: i % 3 === 0 ? 5_000 : null,
    text,
    embedding: null,
  };
}

describe('packRows', () => {
  it('packs every row in order, seven strings each, in parts that stay small', () => {
    // Every seventh a tombstone: no value, no text.
    const rows = Array.from({ length: 400 }, (_, i) =>
      i % 7 === 0
        ? row(i, null, null)
        : row(i, JSON.stringify({ note: 'x'.repeat(200 + i) }), `word${i} more`),
    );
    const parts = packRows(rows);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThan(PART_CHARACTERS + 2_000);
      // Whole rows only: the script reads each part on its own.
      expect((JSON.parse(part) as string[]).length % 7).toBe(0);
    }
    const unpacked = parts.flatMap((part) => JSON.parse(part) as string[]);
    expect(unpacked).toEqual(
      rows.flatMap((r) => [
        r.key,
        String(r.seq),
        String(r.updatedAt),
        String(r.expiresAt ?? NEVER_EXPIRES),
        r.value ?? '',
        r.value === null ? '' : `2 word${r.seq} more`,
        '',
      ]),
    );
  });

  it('packs a small batch as one part, and nothing for no rows', () => {
    expect(packRows([row(1, '"a"', 'a')])).toHaveLength(1);
    expect(packRows([])).toEqual([]);
  });
});

describe('indexEntry', () => {
  it('is the word count and the words, as the index stores them', () => {
    expect(indexEntry('kayak kayak river')).toBe('3 kayak kayak river');
    expect(indexEntry('delta')).toBe('1 delta');
    expect(indexEntry('')).toBe('');
    expect(indexEntry(null)).toBe('');
  });
});
