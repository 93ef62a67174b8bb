import { Logger } from '@nestjs/common';
import type { JsonValue, LongtermRecord } from '../../interfaces/longterm-store.interface.js';
import { textCutAt } from '../message-index.js';
import type { RecallHit } from '../recall.interface.js';
import {
  DEFAULT_RERANK_DEPTH,
  DEFAULT_RERANK_TIMEOUT_MS,
  DEFAULT_RERANK_WEIGHT,
  type RecallRerankOptions,
  type RerankingModel,
} from './reranking-model.interface.js';

const logger = new Logger('Recall');

/** A recall's rerank step, as configured: the model, its depth, weight and timeout, a record's text. */
export interface RecallRerank {
  model: RerankingModel;
  depth: number;
  weight: number;
  timeoutMs: number;
  /** The text of a record of `entityId` the model reads (a message: its text). */
  textOf(record: LongtermRecord, entityId: string): string;
}

/**
 * Reorders recall's hits by the reranking model: the first `depth` of the fused order (each source's
 * fused list, merged by fused score) are scored in one call, each hit's text cut to
 * {@link MAX_RERANK_TEXT_CHARS}; each gets `weight` × the model's score (rescaled to 0–1 over this
 * call; a score the model did not give counts 0) + (1 − `weight`) × its fused score divided by the
 * best hit's; best first (ties keep the fused order). Hits past `depth` follow in the fused order,
 * so the pages of a paged recall never overlap. When the model fails, answers the wrong number of
 * scores or takes longer than `timeoutMs`, recall logs it and answers in the fused order.
 */
export async function rerankHits(
  hits: RecallHit[],
  entityId: string,
  query: string,
  rerank: RecallRerank,
  k: number,
): Promise<RecallHit[]> {
  const fusedOrder = [...hits].sort((a, b) => b.score - a.score);
  const scored = fusedOrder.slice(0, rerank.depth);
  if (scored.length < 2) return fusedOrder.slice(0, k);
  const texts = scored.map((hit) =>
    textCutAt(
      hit.source === 'message' ? hit.message.text : rerank.textOf(hit.record, entityId),
      MAX_RERANK_TEXT_CHARS,
    ),
  );
  const scores = await modelScores(rerank, query, texts);
  if (!scores) return fusedOrder.slice(0, k);
  const model = rescaled(scores);
  const best = scored[0]!.score || 1;
  const modelRank = rankOf(model);
  const reranked: RecallHit[] = scored
    .map((hit, i) => {
      const score = rerank.weight * model[i]! + (1 - rerank.weight) * (hit.score / best);
      const reported = Number.isFinite(scores[i]) ? scores[i]! : model[i]!;
      return { hit, i, score, rank: { rank: modelRank[i]!, score: reported } };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ hit, score, rank }) => ({ ...hit, score, rerank: rank }));
  // Past the depth, the fused order, scored as if the model gave them nothing (and never above
  // the last reranked hit).
  let floor = reranked.at(-1)!.score;
  for (const hit of fusedOrder.slice(rerank.depth, k)) {
    floor = Math.min(floor, (1 - rerank.weight) * (hit.score / best));
    reranked.push({ ...hit, score: floor });
  }
  return reranked.slice(0, k);
}

/** Most characters of a hit's text the model reads (its beginning): bounds a call's work. */
export const MAX_RERANK_TEXT_CHARS = 2_000;

/** The model's scores, or `undefined` (logged) when it failed, timed out or answered wrong. */
async function modelScores(
  rerank: RecallRerank,
  query: string,
  texts: string[],
): Promise<number[] | undefined> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Error(`no answer within ${rerank.timeoutMs} ms`));
    }, rerank.timeoutMs);
  });
  try {
    const scores = await Promise.race([
      rerank.model.rerank(query, texts, { abortSignal: abort.signal }),
      timeout,
    ]);
    if (!Array.isArray(scores) || scores.length !== texts.length)
      throw new Error(`it answered ${String(scores?.length)} scores for ${texts.length} texts`);
    return scores;
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    logger.warn(`Recall without its rerank: ${rerank.model.id} failed: ${problem}`);
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The scores rescaled to 0–1 (lowest to highest finite score; +Infinity counts 1; NaN, −Infinity
 * and anything not a number count 0; finite scores all equal count 0.5: the model tells them
 * nothing apart, only from the unscored).
 */
function rescaled(scores: readonly unknown[]): number[] {
  const finite = scores.filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
  const low = finite.length ? Math.min(...finite) : 0;
  const high = finite.length ? Math.max(...finite) : 0;
  // Halved so that a spread between huge scores of both signs does not overflow.
  const spread = high / 2 - low / 2;
  return scores.map((s) => {
    if (s === Infinity) return 1;
    if (typeof s !== 'number' || !Number.isFinite(s)) return 0;
    if (!(spread > 0)) return 0.5;
    return Math.min(1, Math.max(0, (s / 2 - low / 2) / spread));
  });
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

/** The rerank step of `recall.rerank` (its defaults filled in), given how a record's text is made. */
export function recallRerankOf(
  options: RecallRerankOptions | undefined,
  textOf: (value: JsonValue, key: string, entityId: string) => string,
): RecallRerank | undefined {
  return (
    options && {
      model: options.model,
      depth: options.depth ?? DEFAULT_RERANK_DEPTH,
      weight: options.weight ?? DEFAULT_RERANK_WEIGHT,
      timeoutMs: options.timeoutMs ?? DEFAULT_RERANK_TIMEOUT_MS,
      textOf: (record, entityId) => textOf(record.value, record.key, entityId),
    }
  );
}
