import { describe, expect, it } from '@jest/globals';
import type { RecordRecallHit } from '../recall.interface.js';
import { type RecallRerank, rerankHits } from './rerank-hits.js';
import type { RerankingModel } from './reranking-model.interface.js';

/** Record hits `a`, `b`, `c`, … in fused order (reciprocal-rank scores). */
function hits(count: number): RecordRecallHit[] {
  return Array.from({ length: count }, (_, i) => ({
    source: 'record' as const,
    record: { key: String.fromCharCode(97 + i), value: `text ${i}` } as never,
    score: 1 / (61 + i),
  }));
}

function step(model: RerankingModel, extra: Partial<RecallRerank> = {}): RecallRerank {
  return {
    model,
    depth: 50,
    weight: 1,
    timeoutMs: 1_000,
    textOf: (record) => String(record.value),
    ...extra,
  };
}

const answering = (scores: unknown[]): RerankingModel => ({
  id: 'fixed',
  rerank: async () => scores as number[],
});

const keys = (list: RecordRecallHit[] | Awaited<ReturnType<typeof rerankHits>>) =>
  list.map((hit) => (hit.source === 'record' ? hit.record.key : '?'));

describe('rerankHits', () => {
  it('orders by the model; +Infinity first, NaN and -Infinity as 0, huge scores of both signs fine', async () => {
    expect(keys(await rerankHits(hits(3), 'e', 'q', step(answering([1, 3, 2])), 3))).toEqual([
      'b',
      'c',
      'a',
    ]);
    const odd = await rerankHits(
      hits(4),
      'e',
      'q',
      step(answering([NaN, Infinity, -Infinity, 5])),
      4,
    );
    expect(keys(odd)).toEqual(['b', 'd', 'a', 'c']);
    for (const hit of odd) {
      expect(Number.isFinite(hit.score)).toBe(true);
      expect(Number.isFinite(hit.rerank!.score)).toBe(true);
    }
    const huge = await rerankHits(hits(3), 'e', 'q', step(answering([-1e308, 1e308, 0])), 3);
    expect(keys(huge)).toEqual(['b', 'c', 'a']);
    expect(huge.every((hit) => Number.isFinite(hit.score))).toBe(true);
  });

  it('keeps the fused order when the model tells nothing apart, and leaves a single hit as it is', async () => {
    expect(keys(await rerankHits(hits(3), 'e', 'q', step(answering([4, 4, 4])), 3))).toEqual([
      'a',
      'b',
      'c',
    ]);
    const calls: string[][] = [];
    const model: RerankingModel = {
      id: 'm',
      rerank: async (_q, documents) => (calls.push(documents), [1]),
    };
    const single = await rerankHits(hits(1), 'e', 'q', step(model), 5);
    expect(single).toEqual(hits(1));
    expect(calls).toHaveLength(0);
  });

  it('gives up on a model slower than timeoutMs, aborting its call', async () => {
    let signal: AbortSignal | undefined;
    const slow: RerankingModel = {
      id: 'slow',
      rerank: (_q, documents, options) => {
        signal = options?.abortSignal;
        return new Promise((resolve) =>
          setTimeout(() => resolve(documents.map(() => 1)), 5_000).unref(),
        );
      },
    };
    const started = performance.now();
    const answer = await rerankHits(hits(3), 'e', 'q', step(slow, { timeoutMs: 50 }), 3);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(keys(answer)).toEqual(['a', 'b', 'c']);
    expect(answer.every((hit) => hit.rerank === undefined)).toBe(true);
    expect(signal?.aborted).toBe(true);
  });

  it('cuts each text the model reads to 2,000 characters', async () => {
    const long = hits(2).map((hit) => ({
      ...hit,
      record: { ...hit.record, value: 'x'.repeat(10_000) },
    }));
    let lengths: number[] = [];
    const model: RerankingModel = {
      id: 'm',
      rerank: async (_q, documents) => ((lengths = documents.map((d) => d.length)), [1, 2]),
    };
    await rerankHits(long as RecordRecallHit[], 'e', 'q', step(model), 2);
    expect(lengths).toEqual([2_000, 2_000]);
  });
});
