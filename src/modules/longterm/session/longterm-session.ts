import { ValueTooLargeError } from '../../../common/errors/value-too-large.error.js';
import { DEFAULT_MAX_LONGTERM_VALUE_BYTES } from '../validation/longterm-arguments.js';
import { Logger } from '@nestjs/common';
import { canonicalJson, compareCodePoints } from '../../../common/canonical-json.js';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { LongtermFlushError } from '../errors/longterm.errors.js';
import { recallOptions } from '../recall/recall-options.js';
import { defaultRecordText } from '../recall/search-text.js';
import { TextAnalyzer } from '../recall/text-analyzer.js';
import type {
  JsonValue,
  LongtermMemoryStore,
  LongtermRecord,
} from '../interfaces/longterm-store.interface.js';
import {
  assertEntityId,
  assertKey,
  assertLimit,
  assertPrefix,
  assertSeq,
} from '../validation/longterm-arguments.js';

/** A row a run staged: written, with the run's seq and time, only when the run flushes. */
export interface StagedRow {
  key: string;
  /** Canonical JSON text of the value, so a replay re-stages exactly the same bytes. */
  value: string;
  ttlMs?: number;
}

/** What the tools of a run see (`context.longterm`): reads overlay what the run staged. */
export interface LongtermRunView {
  readonly entityId: string;
  /** Stages a write (no I/O); saving a key again replaces its value and keeps its first position. */
  save(key: string, value: unknown, options?: { ttlMs?: number }): void;
  /** The record as the run sees it: its staged value if it staged the key, else the stored one. */
  load(key: string): Promise<LongtermRecord | null>;
  /**
   * Like the store's search, with the rows the run staged laid over the stored ones: at most
   * `limit` records in code-point key order.
   */
  search(prefix: string, limit: number): Promise<LongtermRecord[]>;
  /**
   * Recall by content: the records that best match `query` (the service's recall over what is
   * stored), after the rows the run staged that hold a word of the query; at most `k`.
   */
  recall(query: string, options?: { k?: number; prefix?: string }): Promise<LongtermRecord[]>;
}

/** Recall over the stored records of the session's entity (the service's hybrid recall). */
export type SessionRecaller = (
  query: string,
  options: { k: number; filter: { prefix?: string } },
) => Promise<Array<{ record: LongtermRecord }>>;

/**
 * How a session gives its rows vectors at flush: the embedding model's id, and a function from the
 * rows' texts to their vectors (the agent's goes through the run cache, so a retried run replays
 * them).
 */
export interface SessionEmbedder {
  /** The embedding model's id, stored with each vector. */
  model: string;
  /** The text of a row to embed (the module's `recordText`). */
  textOf(value: JsonValue, key: string): string;
  /** One vector per text, in order (`[]` for a blank text). */
  embed(texts: string[]): Promise<number[][]>;
}

/** The outcome of a flush: rows written, and rows refused as stale by the seq guard. */
export interface FlushResult {
  flushed: number;
  refused: number;
  flushedKeys: string[];
  refusedKeys: string[];
}

/**
 * A run's long-term session (the agent's "activation"): writes are staged in memory and
 * written together by `flush`, once the turn has committed, with the run's `seq` and `updatedAt` —
 * so every attempt of the run flushes byte-identical rows that the seq guard converges.
 */
export class LongtermSession implements LongtermRunView {
  private readonly logger = new Logger('LongtermSession');
  private readonly rows = new Map<string, StagedRow>();

  constructor(
    private readonly store: LongtermMemoryStore,
    readonly entityId: string,
    readonly seq: number,
    readonly updatedAt: number,
    /** Most bytes of one value's JSON: a larger one is refused when it is staged, not at flush. */
    private readonly maxValueBytes = DEFAULT_MAX_LONGTERM_VALUE_BYTES,
    /** Gives the rows vectors at flush (none: they get theirs from the background embedding). */
    private readonly embedder?: SessionEmbedder,
    /** Recall over stored records (default: the store's full-text search). */
    private readonly recaller?: SessionRecaller,
    /** The text a staged row is matched by in `recall` (default: `defaultRecordText`). */
    private readonly textOf: (value: JsonValue, key: string) => string = (value) =>
      defaultRecordText(value),
    /** How texts become search terms (the store's: the module's `textSearch`). */
    private readonly analyzer: TextAnalyzer = TextAnalyzer.english,
  ) {
    assertEntityId(entityId);
    assertSeq(seq);
  }

  save(key: string, value: unknown, options: { ttlMs?: number } = {}): void {
    this.stage(toStaged(key, value, options.ttlMs, this.maxValueBytes));
  }

  async load(key: string): Promise<LongtermRecord | null> {
    assertKey(key);
    const staged = this.rows.get(key);
    return staged ? this.record(staged) : this.store.load(this.entityId, key);
  }

  async search(prefix: string, limit: number): Promise<LongtermRecord[]> {
    assertPrefix(prefix);
    assertLimit(limit);
    const stored = await this.store.search(this.entityId, prefix, limit);
    const overlay = [...this.rows.values()]
      .filter((row) => row.key.startsWith(prefix))
      .map((row) => this.record(row));
    const byKey = new Map(stored.map((record) => [record.key, record]));
    for (const record of overlay) byKey.set(record.key, record);
    return [...byKey.values()].sort((a, b) => compareCodePoints(a.key, b.key)).slice(0, limit);
  }

  async recall(
    query: string,
    options: { k?: number; prefix?: string } = {},
  ): Promise<LongtermRecord[]> {
    // With text search off, recall is by meaning alone: staged rows (no vectors yet) are not found.
    const wanted = this.analyzer.enabled ? new Set(this.analyzer.queryTerms(query)) : undefined;
    const { k = 10, prefix = '' } = options;
    const { k: checked, filter } = recallOptions({ k, filter: { prefix } });
    const stored = this.recaller
      ? (await this.recaller(query, { k: checked, filter })).map((hit) => hit.record)
      : (await this.store.searchText(this.entityId, query, { limit: checked, prefix })).map(
          (hit) => hit.record,
        );
    const staged = wanted
      ? [...this.rows.values()]
          .filter((row) => row.key.startsWith(prefix))
          .map((row) => this.record(row))
          .filter((record) => this.analyzer.matches(this.textOf(record.value, record.key), wanted))
      : [];
    const stagedKeys = new Set(this.rows.keys());
    return [...staged, ...stored.filter((record) => !stagedKeys.has(record.key))].slice(0, checked);
  }

  /** The rows staged so far, in staging order. */
  staged(): StagedRow[] {
    return [...this.rows.values()];
  }

  /** Stages rows recorded by an earlier attempt (replay), as they were. */
  restage(rows: readonly StagedRow[]): void {
    for (const row of rows) this.stage(row);
  }

  /** A view for one tool step that also records what that step staged (for the replay cache). */
  forStep(): LongtermRunView & {
    /** The rows this step staged, in staging order. */
    stagedByStep(): StagedRow[];
  } {
    const mine = new Map<string, StagedRow>();
    return {
      entityId: this.entityId,
      save: (key, value, options = {}) => {
        const row = toStaged(key, value, options.ttlMs, this.maxValueBytes);
        mine.set(row.key, row);
        this.stage(row);
      },
      load: (key) => this.load(key),
      search: (prefix, limit) => this.search(prefix, limit),
      recall: (query, options) => this.recall(query, options),
      stagedByStep: () => [...mine.values()],
    };
  }

  /** Writes every staged row in one batch with the run's seq; stale rows are refused, counted and logged. */
  async flush(): Promise<FlushResult> {
    const rows = this.staged();
    if (rows.length === 0) return { flushed: 0, refused: 0, flushedKeys: [], refusedKeys: [] };
    let applied: boolean[];
    const values = rows.map((row) => JSON.parse(row.value) as JsonValue);
    const vectors = await this.vectorsOf(rows, values);
    try {
      ({ applied } = await this.store.saveMany(
        rows.map((row, i) => ({
          entityId: this.entityId,
          key: row.key,
          value: values[i],
          seq: this.seq,
          updatedAt: this.updatedAt,
          ...(row.ttlMs === undefined ? {} : { ttlMs: row.ttlMs }),
          ...(vectors ? { embedding: { model: this.embedder!.model, vector: vectors[i]! } } : {}),
        })),
      ));
    } catch (error) {
      throw new LongtermFlushError(
        this.entityId,
        rows.map((row) => row.key),
        error,
      );
    }
    const refusedKeys = rows.filter((_, i) => !applied[i]).map((row) => row.key);
    const flushedKeys = rows.filter((_, i) => applied[i]).map((row) => row.key);
    if (refusedKeys.length > 0) {
      this.logger.warn(
        `Entity ${this.entityId}: ${refusedKeys.length} staged row(s) refused as stale (seq ${this.seq}): ${refusedKeys.join(', ')}`,
      );
    }
    return {
      flushed: flushedKeys.length,
      refused: refusedKeys.length,
      flushedKeys,
      refusedKeys,
    };
  }

  /**
   * The rows' vectors, or `undefined` without an embedder or when it failed: the rows are written
   * without (their text is searchable at once) and the background embedding gives them vectors.
   */
  private async vectorsOf(rows: StagedRow[], values: JsonValue[]): Promise<number[][] | undefined> {
    if (!this.embedder) return undefined;
    try {
      return await this.embedder.embed(
        rows.map((row, i) => this.embedder!.textOf(values[i]!, row.key)),
      );
    } catch (error) {
      this.logger.warn(
        `Entity ${this.entityId}: flushing ${rows.length} row(s) without vectors (the background embedding will add them): ${(error as Error).message}`,
      );
      return undefined;
    }
  }

  private stage(row: StagedRow): void {
    this.rows.set(row.key, row);
  }

  private record(row: StagedRow): LongtermRecord {
    return {
      entityId: this.entityId,
      key: row.key,
      value: JSON.parse(row.value) as JsonValue,
      seq: this.seq,
      updatedAt: this.updatedAt,
      ...(row.ttlMs === undefined ? {} : { expiresAt: this.updatedAt + row.ttlMs }),
    };
  }
}

function toStaged(
  key: string,
  value: unknown,
  ttlMs: number | undefined,
  maxValueBytes: number,
): StagedRow {
  assertKey(key);
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0))
    throw new InvalidArgumentError('ttlMs', 'must be a positive integer');
  if (value === undefined)
    throw new InvalidArgumentError('value', 'must be a JSON value (use null for none)');
  let text: string;
  try {
    text = canonicalJson(value);
  } catch (error) {
    throw new InvalidArgumentError('value', (error as Error).message);
  }
  const size = Buffer.byteLength(text);
  if (size > maxValueBytes) throw new ValueTooLargeError('value', size, maxValueBytes);
  return { key, value: text, ...(ttlMs === undefined ? {} : { ttlMs }) };
}
