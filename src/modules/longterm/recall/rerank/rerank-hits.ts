import { Logger } from '@nestjs/common';
import type { JsonValue, LongtermRecord } from '../../interfaces/longterm-store.interface.js';
import type { RecallHit } from '../recall.interface.js';
import {
  DEFAULT_RERANK_DEPTH,
  DEFAULT_RERANK_WEIGHT,
  type RecallRerankOptions,
  type RerankingModel,
} from './reranking-model.interface.js';

const logger = new Logger('Recall');

/** A recall's rerank step, as configured: the model, its depth and weight, and a record's text. */
export interface RecallRerank {
  model: RerankingModel;
  depth: number;
  weight: number;
  /** The text of a record of `entityId` the model reads (a message: its text). */
  textOf(record: LongtermRecord, entityId: string): string;
}

/**
 * Reorders recall's hits (each source's fused list, read `depth` deep) by the reranking model: one
 * call for all of them; each hit's final score is `weight` × the model's score (rescaled to 0–1 over
 * this call) + (1 − `weight`) × its fused score divided by the best hit's; best first (ties keep
 * the fused order), cut to `k`. When the model fails, recall logs it and answers in the fused order.
 */
export async function rerankHits(
  hits: RecallHit[],
  entityId: string,
  query: string,
  rerank: RecallRerank,
  k: number,
): Promise<RecallHit[]> {
  const fusedOrder = [...hits].sort((a, b) => b.score - a.score);
  if (fusedOrder.length < 2) return fusedOrder.slice(0, k);
  const texts = fusedOrder.map((hit) =>
    hit.source === 'message' ? hit.message.text : rerank.textOf(hit.record, entityId),
  );
  let scores: number[];
  try {
    scores = await rerank.model.rerank(query, texts);
    if (!Array.isArray(scores) || scores.length !== texts.length)
      throw new Error(`it answered ${String(scores?.length)} scores for ${texts.length} texts`);
  } catch (error) {
    logger.warn(
      `Recall without its rerank: ${rerank.model.id} failed: ${(error as Error).message}`,
    );
    return fusedOrder.slice(0, k);
  }
  const modelScores = scores.map((score) => (Number.isFinite(score) ? score : -Infinity));
  const low = Math.min(...modelScores.filter(Number.isFinite));
  const high = Math.max(...modelScores.filter(Number.isFinite));
  const spread = high > low ? high - low : 0;
  const best = fusedOrder[0]!.score || 1;
  const modelRank = rankOf(modelScores);
  return fusedOrder
    .map((hit, i) => {
      const model =
        spread > 0 && Number.isFinite(modelScores[i]!) ? (modelScores[i]! - low) / spread : 0;
      const score = rerank.weight * model + (1 - rerank.weight) * (hit.score / best);
      return { hit, i, score, rank: { rank: modelRank[i]!, score: scores[i]! } };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, k)
    .map(({ hit, score, rank }) => ({ ...hit, score, rerank: rank }));
}

/** Each score's 1-based rank, highest first (ties by position). */
function rankOf(scores: readonly number[]): number[] {
  const order = scores
    .map((score, i) => ({ score, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const ranks = new Array<number>(scores.length);
  order.forEach(({ i }, rank) => (ranks[i] = rank + 1));
  return ranks;
}

/**
 * The rerank step of `recall.rerank` (its defaults filled in), given how a record's text is made;
 * memoized per options object, so a module's recall builds it once.
 */
export function recallRerankOf(
  textOf: (value: JsonValue, key: string, entityId: string) => string,
): (options: RecallRerankOptions | undefined) => RecallRerank | undefined {
  const built = new WeakMap<RecallRerankOptions, RecallRerank>();
  return (options) => {
    if (!options) return undefined;
    let rerank = built.get(options);
    if (!rerank)
      built.set(
        options,
        (rerank = {
          model: options.model,
          depth: options.depth ?? DEFAULT_RERANK_DEPTH,
          weight: options.weight ?? DEFAULT_RERANK_WEIGHT,
          textOf: (record, entityId) => textOf(record.value, record.key, entityId),
        }),
      );
    return rerank;
  };
}
