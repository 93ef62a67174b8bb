import type { PgvectorOption } from './backends/postgres-pgvector.js';
import type { RecordTextFunction } from './recall/search-text.js';
import type { TextAnalysisOptions } from './recall/text-analyzer.js';
import type { EmbedderOption } from './recall/embedding/resolve-embedder.js';
import type { RecallRerankOptions } from './recall/rerank/reranking-model.interface.js';
import type { DataSourceOption } from '../connections/sql/data-source-option.js';
import type { SweepOptions } from '../sweeper/sweeper.options.js';

/** Options of `LongtermMemoryModule.forRoot`; every one is validated at bootstrap. */
export interface LongtermMemoryModuleOptions {
  /**
   * Where records live: `memory://`, `sqlite:<path>` or `sqlite::memory:`, `postgres://…` /
   * `postgresql://…`, `mysql://…` (MariaDB ≥ 10.5), `redis://…` / `rediss://…` (schemes in any
   * case). Absent or empty: the tier is off (no store, no I/O; every use throws
   * `LongtermMemoryDisabledError`).
   */
  uri?: string;
  /**
   * Instead of `uri`: a TypeORM DataSource you own (PostgreSQL, MariaDB/MySQL, SQLite) — an
   * initialized one, or in `forRoot` its injection token (`getDataSourceToken(name)` of
   * `@nestjs/typeorm`: the app's `TypeOrmModule` connection). The package never closes it.
   */
  dataSource?: DataSourceOption;
  /** TTL of saves that give none (default: records never expire). */
  defaultTtlMs?: number;
  /**
   * How long a delete's tombstone guards its key against stale saves (default 7 days, the run
   * retention). Keep it at least as long as a run can be retried.
   */
  tombstoneTtlMs?: number;
  /**
   * Most UTF-8 bytes of one record's value as JSON (default 256 KiB); a larger save fails with
   * `ValueTooLargeError` (HTTP 413) before anything is written.
   */
  maxValueBytes?: number;
  /** Redis key prefix (default `agent-memory:longterm:`). */
  keyPrefix?: string;
  /**
   * The sweep of expired rows (default every 60 s, in batches of 1,000 until none is left), on
   * `SweeperModule`'s scheduler when the app has one; `false` turns it off.
   */
  sweep?: SweepOptions;
  /** Run the package's SQL migrations at start (default true). */
  migrationsRun?: boolean;
  /** The clock expiry is judged by (tests). */
  now?: () => number;
  /**
   * The text a record is found by in text search and recall, given its value and key (default: a
   * string value as it is; for other JSON values, their string leaves). Runs on every save; a throw
   * or a non-string answer refuses the save (`InvalidArgumentError`).
   */
  recordText?: RecordTextFunction;
  /**
   * How a record's text becomes search terms, the same at save and at search on every backend:
   * `stemmer` (`'english'` by default: Porter2 stems beside the words; `'none'`; or your own
   * synchronous function, tried once at bootstrap) and `queryStopWords` (English question words by
   * default; `[]` for none). Rows keep the terms they were saved with: after a change, a row is
   * indexed anew only when it is saved again (see the recall guide for what a re-save changes).
   * `false`: text search off — records are saved without their words indexed (a write costs no
   * index upkeep; `recordText` only makes the text an embedder embeds), `searchText` and lexical
   * recall are refused (`InvalidArgumentError`), and `recall` reads the vector list alone, which
   * needs `recall.embedder`. Rows saved while it was off are found by words once saved again with
   * it on.
   */
  textSearch?: TextAnalysisOptions | false;
  /** Recall by meaning as well as by words (default: full-text recall alone). */
  recall?: LongtermRecallOptions;
}

/** `LongtermMemoryModule.forRoot({ recall })`. */
export interface LongtermRecallOptions {
  /**
   * The embedding model of recall's vector list: an `EmbeddingModel` (`{ id, embed }`, e.g.
   * `new HashingEmbeddingModel()` offline), any AI SDK embedding model (`openai.embedding(id)`),
   * or an OpenAI-compatible `/v1/embeddings` endpoint (`{ provider: 'openai-compatible', baseUrl,
   * model, apiKey? }`, through the optional peer `@ai-sdk/openai-compatible`).
   */
  embedder?: EmbedderOption;
  /**
   * The least cosine similarity a vector hit needs to count (default 0.1): a record whose vector
   * points elsewhere (cosine near or below 0) is not a hit by meaning, however few records there are.
   * Raise it for a model whose unrelated texts score higher; 0 keeps every non-opposed vector.
   */
  minSimilarity?: number;
  /**
   * The background embedding of live records without a vector of the current model (saved outside a
   * run, while the model was down, or by an earlier model): at start and then every 10 minutes, in
   * batches of 100 (on `SweeperModule`'s scheduler when the app has one, e.g. Bull); `false` turns it
   * off.
   */
  backfill?: SweepOptions;
  /**
   * On PostgreSQL: rank vectors with pgvector. Unset: when the `vector` extension is installed in
   * the database (else an exact scan in the process); `false`: never; `true`: it must be installed
   * (the start fails otherwise); `{ hnsw: { dimensions } }`: it must be, and an HNSW index
   * (cosine) is built at start for vectors of that many dimensions (at most 2,000): approximate, fast
   * at scale.
   */
  pgvector?: PgvectorOption;
  /**
   * A second look at the best hits: a reranking model (`WordVectorRerankingModel` offline, or any
   * AI SDK reranking model through `aiSdkRerankingModel`) scores the fused order's first `depth`
   * hits (default 50) against the query in one call, and each hit's final score is `weight`
   * (default 0.5) of the model's plus the rest of its fused score. A call can skip it with
   * `recall(…, { rerank: false })`; when the model fails or takes longer than `timeoutMs` (5 s),
   * recall logs it and answers in the fused order.
   */
  rerank?: RecallRerankOptions;
}
