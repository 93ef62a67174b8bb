import { describe, expect, it } from '@jest/globals';
import type { TextSearchHit } from '../interfaces/longterm-store.interface.js';
import { rerankByNeighbours } from './neighbour-rerank.js';

/** A message hit of a conversation at a position, with a full-text score. */
const hit = (conversationId: string, position: number, score: number): TextSearchHit => ({
  record: {
    entityId: 'm',
    key: `${conversationId}/${position}`,
    value: { conversationId, position, messageId: `r:${position}`, role: 'user', text: 'x' },
    seq: 1,
    updatedAt: 0,
  },
  score,
});
const keys = (hits: TextSearchHit[]) => hits.map((h) => h.record.key);

describe('rerankByNeighbours', () => {
  it('adds a share of the scores just before and after, in the same conversation only', () => {
    const hits = [hit('a', 5, 10), hit('b', 1, 8), hit('b', 2, 7), hit('a', 7, 6), hit('c', 6, 5)];
    // b/1: 8 + 0.5 × 7 = 11.5; b/2: 7 + 0.5 × 8 = 11; a/5: 10 (a/4 and a/6 are not hits); a/7: 6;
    // c/6 is no neighbour of a/5 or a/7 (another conversation).
    expect(keys(rerankByNeighbours(hits, 0.5))).toEqual(['b/1', 'b/2', 'a/5', 'a/7', 'c/6']);
    // Each hit keeps its own score.
    expect(rerankByNeighbours(hits, 0.5).map((h) => h.score)).toEqual([8, 7, 10, 6, 5]);
  });

  it('leaves the list as it is with weight 0, and keeps the order of ties', () => {
    const hits = [hit('a', 1, 3), hit('b', 1, 3), hit('c', 1, 3)];
    expect(rerankByNeighbours(hits, 0)).toBe(hits);
    expect(keys(rerankByNeighbours(hits, 1))).toEqual(['a/1', 'b/1', 'c/1']);
  });

  it('gives hits that are not messages no neighbours', () => {
    const record: TextSearchHit = {
      ...hit('a', 1, 9),
      record: { ...hit('a', 1, 9).record, value: 'plain' },
    };
    const hits = [record, hit('z', 1, 5), hit('z', 2, 5)];
    expect(keys(rerankByNeighbours(hits, 1))).toEqual(['z/1', 'z/2', 'a/1']);
    expect(keys(rerankByNeighbours(hits, 0.5))).toEqual(['a/1', 'z/1', 'z/2']);
  });
});
