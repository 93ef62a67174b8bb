/** A JSON value. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A long-term memory record, as stored and returned. */
export interface LongtermRecord {
  entityId: string;
  key: string;
  /** Parsed from the stored canonical JSON text. */
  value: JsonValue;
  seq: number;
  /** Epoch ms, given by the writer (a run passes its creation time). */
  updatedAt: number;
  /** Epoch ms after which the record is invisible; absent = never. */
  expiresAt?: number;
}

/** What `save` / `saveMany` take. */
export interface LongtermSaveInput {
  entityId: string;
  key: string;
  value: unknown;
  /** The writer's sequence number: the save applies iff the row is absent or expired, or `seq >= stored.seq`. */
  seq: number;
  /** Epoch ms (default: now). */
  updatedAt?: number;
  /** Sets `expiresAt = updatedAt + ttlMs` (default: the store's default TTL, if any). */
  ttlMs?: number;
  /**
   * The value's vector and the model that made it, stored with the row (scaled to unit length);
   * absent: the row has no vector until the service's background embedding gives it one.
   */
  embedding?: { model: string; vector: ArrayLike<number> };
}

/** Size and filters of a text search ({@link LongtermMemoryStore.searchText}). */
export interface TextSearchOptions {
  /** Most hits (default 10, at most {@link MAX_TEXT_SEARCH_LIMIT}). */
  limit?: number;
  /** Only records whose key starts with it (literally, case-sensitively). */
  prefix?: string;
  /** Only records updated at or after this time (epoch ms). */
  updatedFrom?: number;
  /** Only records updated before this time (epoch ms). */
  updatedTo?: number;
}

/** Size and filters of a vector search ({@link LongtermMemoryStore.searchVector}). */
export interface VectorSearchOptions extends TextSearchOptions {
  /** Only vectors this model made (an `EmbeddingModel`'s `id`). */
  model: string;
}

/** A live record without a vector of the current model: what the background embedding works on. */
export interface UnembeddedRecord {
  entityId: string;
  key: string;
  value: JsonValue;
  seq: number;
}

/** A vector for a stored record, applied only if the record still has `seq` and `value`. */
export interface EmbeddingUpdate {
  entityId: string;
  key: string;
  seq: number;
  /** The value the vector was made from (as `unembedded` gave it). */
  value: JsonValue;
  model: string;
  /** The vector; empty when the record has no text to embed (so it is not tried again). */
  vector: ArrayLike<number>;
}

/** A record a text search found, and how well it matched (higher is better). */
export interface TextSearchHit {
  record: LongtermRecord;
  /**
   * The backend's relevance score: BM25 on memory, SQLite, PostgreSQL and Redis, InnoDB's relevance
   * (TF-IDF) on MariaDB. Comparable within one result, not across backends.
   */
  score: number;
}

/**
 * Entity-scoped key/value records with seq-guarded writes. Every argument is validated
 * before any I/O; every guard is decided atomically by the backend.
 */
export interface LongtermMemoryStore {
  /** The live record, or `null` (absent, deleted, or expired). */
  load(entityId: string, key: string): Promise<LongtermRecord | null>;
  /**
   * Writes one record under the seq guard; `applied` is false, and nothing changes, when the stored
   * record or tombstone has a higher seq or the entity's erasure mark is at or above `seq`.
   */
  save(record: LongtermSaveInput): Promise<{ applied: boolean }>;
  /** One round trip for the batch; a key twice in one batch is an error. */
  saveMany(records: LongtermSaveInput[]): Promise<{ applied: boolean[] }>;
  /** A seq-guarded tombstone: a stale save cannot bring the row back. */
  delete(entityId: string, key: string, seq: number): Promise<{ applied: boolean }>;
  /**
   * Erases every record and tombstone of the entity, and leaves an erasure mark holding the highest
   * seq the entity had handed out (its counter) or stored: any later save or delete at or below it
   * (a stale flush of a run that began before the erasure) is refused, reported like a stale seq.
   * The entity's counter is raised to the mark, so new runs take seqs above it.
   */
  deleteEntity(entityId: string): Promise<void>;
  /**
   * Live records whose key starts with `prefix` (literally, case-sensitively), in code-point order;
   * with `after` (a key), only keys after it — the next page of a search.
   */
  search(
    entityId: string,
    prefix: string,
    limit: number,
    after?: string,
  ): Promise<LongtermRecord[]>;
  /**
   * Live records of the entity holding any word of `query`, best match first (ties by key). Words are
   * matched case- and accent-insensitively (see the package's `words` tokenizer); a record is found
   * by the words of its text (a string value, or the string leaves of a JSON value, unless the store
   * was given its own `recordText`), indexed in the same atomic write as the value, so the seq guard,
   * deletes, erasure and expiry govern what a search can see exactly as they govern `load`.
   */
  searchText(
    entityId: string,
    query: string,
    options?: TextSearchOptions,
  ): Promise<TextSearchHit[]>;
  /**
   * Live records of the entity with a vector of `options.model`, most similar (cosine) to `vector`
   * first (ties by key): an exact scan of the entity's vectors. `score` is the cosine similarity.
   */
  searchVector(
    entityId: string,
    vector: ArrayLike<number>,
    options: VectorSearchOptions,
  ): Promise<TextSearchHit[]>;
  /**
   * Up to `limit` live records, of any entity, without a vector of `model`, and a `cursor` for the
   * next page when more may follow (opaque; pages follow the store's own order).
   */
  unembedded(
    model: string,
    limit: number,
    cursor?: string,
  ): Promise<{ records: UnembeddedRecord[]; cursor?: string }>;
  /**
   * Stores vectors for records that still hold the given `seq` and `value` (a newer write — even one
   * at the same seq —, a delete or an erasure since makes the update a no-op); `applied` says which
   * did.
   */
  setEmbeddings(updates: EmbeddingUpdate[]): Promise<{ applied: boolean[] }>;
  /** Removes expired rows, at most `limit`; returns how many went (the sweeper's job). */
  sweepExpired(limit: number): Promise<number>;
}

/** Per-entity durable counters: a run's `seq` is taken from its entity's counter when it is created. */
export interface SeqCounter {
  /** Increments the entity's counter atomically and resolves the new value. */
  next(entityId: string): Promise<number>;
}

/** Longest key, in UTF-8 bytes. */
export const MAX_LONGTERM_KEY_BYTES = 512;
/** Longest entity id, in UTF-8 bytes. */
export const MAX_ENTITY_ID_BYTES = 255;
/** Largest `limit` of a text search. */
export const MAX_TEXT_SEARCH_LIMIT = 100;
/** Largest `limit` of a search. */
export const MAX_SEARCH_LIMIT = 1_000;
