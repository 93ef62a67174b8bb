import { describe, expect, it } from '@jest/globals';
import { EntityCounts } from '../../src/modules/longterm/backends/entity-record-counts.js';

describe('EntityCounts (BM25 N reused by PostgreSQL text searches)', () => {
  it('reuses a count for 30 s, forgets an erased entity, and keeps at most 10,000', () => {
    const counts = new EntityCounts();
    counts.set('a', 42, 1_000);
    expect(counts.get('a', 1_000 + 29_999)).toBe(42);
    expect(counts.get('a', 1_000 + 30_000)).toBeNull();
    counts.set('a', 43, 50_000);
    counts.forget('a');
    expect(counts.get('a', 50_001)).toBeNull();
    for (let i = 0; i <= 10_000; i += 1) counts.set(`e${i}`, i, 60_000);
    expect(counts.get('e0', 60_001)).toBeNull(); // the oldest went
    expect(counts.get('e1', 60_001)).toBe(1);
    expect(counts.get('e10000', 60_001)).toBe(10_000);
  });
});
