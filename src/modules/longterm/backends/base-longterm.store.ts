import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import {
  type LongtermMemoryStore,
  type LongtermRecord,
  type LongtermSaveInput,
  type TextSearchHit,
  type TextSearchOptions,
  type EmbeddingUpdate,
  type UnembeddedRecord,
  type VectorSearchOptions,
} from '../interfaces/longterm-store.interface.js';
import {
  type PreparedEmbedding,
  type VectorMatch,
  assertUnembeddedPage,
  prepareEmbeddings,
  vectorMatch,
} from '../recall/vector-match.js';
import { decode } from './decode-row.js';
import type { RecordTextFunction } from '../recall/search-text.js';
import type { TextAnalyzer } from '../recall/text-analyzer.js';
import { type TextMatch, textMatch } from '../recall/text-match.js';
import {
  type PreparedRecord,
  assertEntityId,
  assertKey,
  assertLimit,
  assertPrefix,
  assertSeq,
  prepareBatch,
  prepareRecord,
  type RecordRules,
  storeRecordRules,
} from '../validation/longterm-arguments.js';
import { prefixUpperBound } from '../validation/prefix-range.js';
import type { StoreSystem } from '../../../common/telemetry/attributes.js';
import { inStoreSpan } from '../../../common/telemetry/spans.js';
import { type VectorCandidate, nearestRows } from './vector-scan.js';
import type { ScoredRow, StoredRow } from './stored-row.js';

export type { ScoredRow, StoredRow } from './stored-row.js';

/** Settings every built-in long-term backend takes. */
export interface LongtermStoreSettings {
  /** TTL of a save that gives none (default: none, records never expire). */
  defaultTtlMs?: number;
  /** The clock expiry is judged by (injectable for tests). */
  now?: () => number;
  /**
   * How long a delete tombstone guards its key against stale saves (default 7 days, the run
   * retention: no retried flush outlives it); an entity's erasure mark never expires.
   */
  tombstoneTtlMs?: number;
  /** Most UTF-8 bytes of one value's JSON (default 256 KiB); larger saves are `ValueTooLargeError`. */
  maxValueBytes?: number;
  /** The text a record is found by in `searchText` (default: `defaultRecordText`). */
  recordText?: RecordTextFunction;
  /** How text becomes search terms, at save and at search (default: English stems and stop words). */
  analyzer?: TextAnalyzer;
}

/** Default lifetime of a delete tombstone: the run retention. */
export const DEFAULT_TOMBSTONE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Shared front of the built-in long-term backends: validates every argument before any I/O,
 * computes canonical values and expiry, and decodes rows. A backend implements the raw, atomic
 * operations, the seq guard included (`writeBatch`: apply each row iff its seq is above the
 * entity's erasure mark, if any, and the row is absent, expired, or `incoming.seq >= stored.seq`,
 * in one statement or script).
 */
export abstract class BaseLongtermStore implements LongtermMemoryStore {
  /** The backend's `db.system.name`, on the span of each operation. */
  protected abstract readonly system: StoreSystem;
  /** The clock expiry is judged by: `settings.now`, else `Date.now`. */
  protected readonly now: () => number;
  private readonly rules: RecordRules;
  private readonly tombstoneTtlMs: number;

  protected constructor(settings: LongtermStoreSettings = {}) {
    this.now = settings.now ?? Date.now;
    this.rules = storeRecordRules({
      defaultTtlMs: settings.defaultTtlMs,
      maxValueBytes: settings.maxValueBytes,
      recordText: settings.recordText,
      analyzer: settings.analyzer,
    });
    this.tombstoneTtlMs = settings.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
  }

  /** Writes saves and tombstones (`value: null`) with the seq guard; returns which applied. */
  protected abstract writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]>;
  /** The live row of the key (neither a tombstone nor expired at `now`), or `null`. */
  protected abstract readOne(entityId: string, key: string, now: number): Promise<StoredRow | null>;
  /** Live rows with `lower <= key < upper` (no upper: to the end), in key order, at most `limit`. */
  protected abstract readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]>;
  /**
   * Erases the entity: deletes every row and leaves its erasure mark — the highest seq the entity
   * had handed out (its counter) or stored — which every later write must exceed; raises the
   * counter to the mark, so new runs take seqs above it.
   */
  protected abstract eraseEntity(entityId: string, now: number): Promise<void>;
  /**
   * The live rows (neither tombstones nor expired at `now`) of the entity whose indexed text holds
   * any of the words, within the key range and time range, best first (ties by key), at most
   * `limit`.
   */
  protected abstract readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]>;
  /**
   * The vectors of `model` of the entity's live rows within the key range (and, where the backend
   * can, the time range), with their keys: never the values. The rows of the best are then read
   * with `readMany`, which decides.
   */
  protected abstract readVectors(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<Iterable<VectorCandidate>>;
  /** The live rows of these keys of the entity, in any order (a key without one is left out). */
  protected abstract readMany(entityId: string, keys: string[], now: number): Promise<StoredRow[]>;
  /** The nearest rows, best first, when the backend ranks them itself; else the exact scan. */
  protected readNearest?(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<ScoredRow[]> | undefined;
  /**
   * Up to `limit` live rows of any entity whose vector is not of `model` (or absent), after the
   * position `cursor` (`undefined`: from the start), and the cursor after the last one (none: done).
   */
  protected abstract readUnembedded(
    model: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): Promise<{ rows: StoredRow[]; cursor?: string }>;
  /** Stores each vector iff its row is live and still has its seq; returns which were stored. */
  protected abstract writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]>;
  /**
   * Deletes up to `limit` rows (records and tombstones) whose `expiresAt` is at or before `now`;
   * resolves how many went.
   */
  protected abstract removeExpired(limit: number, now: number): Promise<number>;

  async load(entityId: string, key: string): Promise<LongtermRecord | null> {
    assertEntityId(entityId);
    assertKey(key);
    return this.traced('load', async () => {
      const row = await this.readOne(entityId, key, this.now());
      return row ? decode(row) : null;
    });
  }

  async save(record: LongtermSaveInput): Promise<{ applied: boolean }> {
    const now = this.now();
    const row = prepareRecord(record, now, this.rules);
    return this.traced('save', async () => {
      const [applied] = await this.writeBatch([row], now);
      return { applied: applied! };
    });
  }

  async saveMany(records: LongtermSaveInput[]): Promise<{ applied: boolean[] }> {
    const now = this.now();
    const rows = prepareBatch(records, now, this.rules);
    if (rows.length === 0) return { applied: [] };
    return this.traced('save_many', async () => ({ applied: await this.writeBatch(rows, now) }));
  }

  async delete(entityId: string, key: string, seq: number): Promise<{ applied: boolean }> {
    assertEntityId(entityId);
    assertKey(key);
    assertSeq(seq);
    const now = this.now();
    const tombstone = {
      entityId,
      key,
      value: null,
      seq,
      updatedAt: now,
      expiresAt: now + this.tombstoneTtlMs,
      text: null,
      embedding: null,
    };
    return this.traced('delete', async () => {
      const [applied] = await this.writeBatch([tombstone], now);
      return { applied: applied! };
    });
  }

  async deleteEntity(entityId: string): Promise<void> {
    assertEntityId(entityId);
    await this.traced('delete_entity', () => this.eraseEntity(entityId, this.now()));
  }

  async search(
    entityId: string,
    prefix: string,
    limit: number,
    after?: string,
  ): Promise<LongtermRecord[]> {
    assertEntityId(entityId);
    assertPrefix(prefix);
    assertLimit(limit);
    if (after !== undefined) {
      assertKey(after, 'after');
      if (!after.startsWith(prefix))
        throw new InvalidArgumentError(
          'after',
          'must be a key the search returned (it starts with prefix)',
        );
    }
    // Keys never hold U+0000, so the first key after `after` is at least `after` + U+0001.
    const lower = after === undefined ? prefix : `${after}\u0001`;
    return this.traced('search', async () =>
      (await this.readRange(entityId, lower, prefixUpperBound(prefix), limit, this.now())).map(
        decode,
      ),
    );
  }

  async searchText(
    entityId: string,
    query: string,
    options: TextSearchOptions = {},
  ): Promise<TextSearchHit[]> {
    assertEntityId(entityId);
    const match = textMatch(query, options, this.rules.analyzer);
    return this.traced('search_text', async () =>
      (await this.readMatches(entityId, match, this.now())).map((row) => ({
        record: decode(row),
        score: Number(row.score),
      })),
    );
  }

  async searchVector(
    entityId: string,
    vector: ArrayLike<number>,
    options: VectorSearchOptions,
  ): Promise<TextSearchHit[]> {
    assertEntityId(entityId);
    const match = vectorMatch(vector, options);
    return this.traced('search_vector', async () => {
      const now = this.now();
      const rows =
        this.readNearest?.(entityId, match, now) ??
        nearestRows(match, await this.readVectors(entityId, match, now), (keys) =>
          this.readMany(entityId, keys, now),
        );
      return (await rows).map((row) => ({ record: decode(row), score: row.score }));
    });
  }

  async unembedded(
    model: string,
    limit: number,
    cursor?: string,
  ): Promise<{ records: UnembeddedRecord[]; cursor?: string }> {
    assertUnembeddedPage(model, limit, cursor);
    return this.traced('unembedded', async () => {
      const page = await this.readUnembedded(model, limit, cursor, this.now());
      return {
        records: page.rows.map((row) => {
          const { entityId, key, value, seq } = decode(row);
          return { entityId, key, value, seq };
        }),
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      };
    });
  }

  async setEmbeddings(updates: EmbeddingUpdate[]): Promise<{ applied: boolean[] }> {
    const prepared = prepareEmbeddings(updates);
    if (prepared.length === 0) return { applied: [] };
    return this.traced('set_embeddings', async () => ({
      applied: await this.writeEmbeddings(prepared, this.now()),
    }));
  }

  async sweepExpired(limit: number): Promise<number> {
    assertLimit(limit);
    return this.traced('sweep', () => this.removeExpired(limit, this.now()));
  }

  /** One operation in its span (`longterm_memory.<operation>`), once its arguments are valid. */
  private traced<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return inStoreSpan('longterm_memory', this.system, operation, {}, work);
  }
}
