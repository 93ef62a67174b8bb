import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type {
  LongtermMemoryStore,
  LongtermRecord,
  TextSearchHit,
} from '../interfaces/longterm-store.interface.js';
import { embedTexts } from './embedding/embed-texts.js';
import type { EmbeddingModel } from './embedding/embedding-model.interface.js';
import { type RankedList, fuseRankings } from './rank-fusion.js';
import type { RecallHit, RecallOptions } from './recall.interface.js';
import { recallOptions } from './recall-options.js';
import { queryWords } from './search-text.js';

const logger = new Logger('Recall');

/** How deep each list is read before fusion: twice `k`, at least 20, at most 100. */
function listDepth(k: number): number {
  return Math.min(100, Math.max(2 * k, 20));
}

/**
 * Runs the lists of a recall at once and fuses them (reciprocal rank fusion). The vector list needs
 * the query's vector (one embedding call); when that call fails, a hybrid recall logs it and
 * answers with the full-text list alone, while a `vector` recall fails.
 */
export async function hybridRecall(
  store: LongtermMemoryStore,
  embedder: EmbeddingModel | undefined,
  entityId: string,
  query: string,
  options: RecallOptions,
): Promise<RecallHit[]> {
  const { k, filter, mode } = recallOptions(options);
  queryWords(query); // a query must hold a word, whatever the lists
  if (mode === 'vector' && !embedder)
    throw new InvalidArgumentError(
      'mode',
      'vector needs an embedder (LongtermMemoryModule recall.embedder)',
    );
  const depth = listDepth(k);
  const lexical =
    mode === 'vector'
      ? Promise.resolve(undefined)
      : store.searchText(entityId, query, { ...filter, limit: depth });
  const vector =
    mode === 'lexical' || !embedder
      ? Promise.resolve(undefined)
      : vectorList(
          store,
          embedder,
          entityId,
          query,
          { ...filter, limit: depth },
          mode === 'vector',
        );
  const lists: Array<RankedList<LongtermRecord>> = [];
  const [lexicalHits, vectorHits] = await Promise.all([lexical, vector]);
  if (lexicalHits) lists.push(ranked('lexical', lexicalHits));
  if (vectorHits) lists.push(ranked('vector', vectorHits));
  return fuseRankings(lists, k).map((fused) => ({
    source: 'record' as const,
    record: fused.item,
    score: fused.score,
    ...(fused.ranks.lexical ? { lexical: fused.ranks.lexical } : {}),
    ...(fused.ranks.vector ? { vector: fused.ranks.vector } : {}),
  }));
}

async function vectorList(
  store: LongtermMemoryStore,
  embedder: EmbeddingModel,
  entityId: string,
  query: string,
  options: { limit: number; prefix?: string; updatedFrom?: number; updatedTo?: number },
  required: boolean,
): Promise<TextSearchHit[] | undefined> {
  let vector: number[];
  try {
    [vector] = (await embedTexts(embedder, [query])) as [number[]];
  } catch (error) {
    if (required) throw error;
    logger.warn(
      `Recall without its vector list: embedding the query failed: ${(error as Error).message}`,
    );
    return undefined;
  }
  return store.searchVector(entityId, vector, { ...options, model: embedder.id });
}

function ranked(name: string, hits: TextSearchHit[]): RankedList<LongtermRecord> {
  return {
    name,
    items: hits.map((hit) => ({ id: hit.record.key, item: hit.record, score: hit.score })),
  };
}
