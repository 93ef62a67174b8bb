import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type {
  LongtermMemoryStore,
  LongtermRecord,
  TextSearchHit,
  TextSearchOptions,
} from '../interfaces/longterm-store.interface.js';
import { embedTexts } from './embedding/embed-texts.js';
import type { EmbeddingModel } from './embedding/embedding-model.interface.js';
import { conversationKeyPrefix, indexedMessageOf, messageEntityOf } from './message-index.js';
import { type RankedList, fuseRankings } from './rank-fusion.js';
import type { RecallHit, RecallMode, RecallOptions, RecallRanking } from './recall.interface.js';
import { recallOptions } from './recall-options.js';
import { queryWords } from './search-text.js';
import { rerankByNeighbours } from './neighbour-rerank.js';
import { type RecallRerank, rerankHits } from './rerank/rerank-hits.js';

const logger = new Logger('Recall');

/** Default least cosine similarity of a vector hit (`recall.minSimilarity`). */
export const DEFAULT_MIN_SIMILARITY = 0.1;

/** How deep each list is read before fusion: twice `k`, at least 20, at most 100. */
function listDepth(k: number): number {
  return Math.min(100, Math.max(2 * k, 20));
}

/** A record of one fused list, with its ranking. */
type FusedRecord = RecallRanking & { record: LongtermRecord };

/** What a recall runs on: the store, and the models and settings configured for recall. */
export interface RecallContext {
  store: LongtermMemoryStore;
  embedder?: EmbeddingModel;
  /** Least cosine similarity of a vector hit (default {@link DEFAULT_MIN_SIMILARITY}). */
  minSimilarity?: number;
  rerank?: RecallRerank;
  /** False when the tier's text search is off (`textSearch: false`): recall runs by meaning alone. */
  textSearch?: boolean;
}

/**
 * Runs the lists of a recall at once and fuses them (reciprocal rank fusion), per source: the
 * entity's records, the messages it took part in, or both (then merged by fused score, which both
 * sources compute alike). The vector lists need the query's vector (one embedding call for both
 * sources); when that call fails, a hybrid recall logs it and answers with the full-text lists
 * alone, while a `vector` recall fails. A vector hit below `minSimilarity` (cosine) is dropped.
 * With a rerank configured (and not turned off by the call), each source's fused list is read
 * `depth` deep and the reranking model reorders the lot (see `rerankHits`).
 */
export async function hybridRecall(
  context: RecallContext,
  entityId: string,
  query: string,
  options: RecallOptions,
): Promise<RecallHit[]> {
  const { store, embedder, minSimilarity = DEFAULT_MIN_SIMILARITY } = context;
  const { k, filter, sources, neighbours, rerank: rerankOn, ...asked } = recallOptions(options);
  const rerank = rerankOn ? context.rerank : undefined;
  queryWords(query); // a query must hold a word, whatever the lists
  const textSearch = context.textSearch ?? true;
  const mode = checkedMode(asked.mode, embedder, textSearch);
  const vector =
    mode === 'lexical' || !embedder ? undefined : await queryVector(embedder, query, mode);
  const { conversationId, prefix, ...times } = filter;
  // A rerank reads each source's fused list `depth` deep, then keeps the best k of the lot.
  const depth = rerank ? Math.max(k, rerank.depth) : k;
  const lexical = mode !== 'vector' && textSearch;
  const search = { lexical, vector, model: embedder?.id, k: depth, minSimilarity };
  const [records, messages] = await Promise.all([
    sources.records
      ? fusedRecords(store, entityId, query, search, {
          ...times,
          ...(prefix === undefined ? {} : { prefix }),
        })
      : [],
    sources.messages
      ? fusedRecords(
          store,
          messageEntityOf(entityId),
          query,
          { ...search, neighbours },
          {
            ...times,
            ...(conversationId === undefined
              ? {}
              : { prefix: conversationKeyPrefix(conversationId) }),
          },
        )
      : [],
  ]);
  const hits: RecallHit[] = [];
  for (const { record, ...ranking } of records) hits.push({ source: 'record', record, ...ranking });
  for (const { record, ...ranking } of messages) {
    const message = indexedMessageOf(record.value);
    if (message)
      hits.push({ source: 'message', message: { ...message, at: record.updatedAt }, ...ranking });
  }
  if (rerank) return rerankHits(hits, entityId, query, rerank, k);
  // Stable: between equal scores, records stay before messages, each in its own order.
  return sources.records && sources.messages
    ? hits.sort((a, b) => b.score - a.score).slice(0, k)
    : hits;
}

/**
 * The mode asked for, refused where the tier cannot make its lists: `lexical` with text search off,
 * `vector` — or any mode with text search off — without an embedder. With text search off, a hybrid
 * recall reads the vector list alone (an embedding failure then leaves it with no list: logged,
 * nothing found, as a hybrid recall whose lists found nothing).
 */
function checkedMode(
  mode: RecallMode,
  embedder: EmbeddingModel | undefined,
  textSearch: boolean,
): RecallMode {
  if (!textSearch && mode === 'lexical')
    throw new InvalidArgumentError(
      'mode',
      'lexical needs text search, which is off for this store (LongtermMemoryModule textSearch: false)',
    );
  if (!embedder && (mode === 'vector' || !textSearch))
    throw new InvalidArgumentError(
      'mode',
      textSearch
        ? 'vector needs an embedder (LongtermMemoryModule recall.embedder)'
        : `${mode} needs an embedder (LongtermMemoryModule recall.embedder) when text search is off (textSearch: false)`,
    );
  return mode;
}

/** The query's vector; `undefined` when a hybrid recall cannot have one (logged). */
async function queryVector(
  embedder: EmbeddingModel,
  query: string,
  mode: RecallMode,
): Promise<number[] | undefined> {
  try {
    const [vector] = (await embedTexts(embedder, [query])) as [number[]];
    if (vector.length > 0) return vector;
    // The model found nothing in the query to embed (an all-zero answer): no vector list.
    if (mode === 'vector')
      throw new InvalidArgumentError('query', 'the embedding model found nothing in it to embed');
    return undefined;
  } catch (error) {
    if (mode === 'vector') throw error;
    logger.warn(
      `Recall without its vector list: embedding the query failed: ${(error as Error).message}`,
    );
    return undefined;
  }
}

/** One entity's lists, read `listDepth(k)` deep, fused. */
async function fusedRecords(
  store: LongtermMemoryStore,
  entityId: string,
  query: string,
  search: {
    /** Whether the full-text list is read. */
    lexical: boolean;
    vector?: number[];
    model?: string;
    k: number;
    minSimilarity: number;
    /** Messages only: the neighbour rerank's weight of the full-text list (0: none). */
    neighbours?: number;
  },
  filter: Omit<TextSearchOptions, 'limit'>,
): Promise<FusedRecord[]> {
  const options = { ...filter, limit: listDepth(search.k) };
  const [lexicalHits, vectorHits] = await Promise.all([
    search.lexical ? store.searchText(entityId, query, options) : undefined,
    search.vector && search.model
      ? store.searchVector(entityId, search.vector, { ...options, model: search.model })
      : undefined,
  ]);
  const lists: Array<RankedList<LongtermRecord>> = [];
  if (lexicalHits)
    lists.push(ranked('lexical', rerankByNeighbours(lexicalHits, search.neighbours ?? 0)));
  if (vectorHits)
    lists.push(
      ranked(
        'vector',
        vectorHits.filter((hit) => hit.score >= search.minSimilarity),
      ),
    );
  return fuseRankings(lists, search.k).map((fused) => ({
    record: fused.item,
    score: fused.score,
    ...(fused.ranks.lexical ? { lexical: fused.ranks.lexical } : {}),
    ...(fused.ranks.vector ? { vector: fused.ranks.vector } : {}),
  }));
}

function ranked(name: string, hits: TextSearchHit[]): RankedList<LongtermRecord> {
  return {
    name,
    items: hits.map((hit) => ({ id: hit.record.key, item: hit.record, score: hit.score })),
  };
}
