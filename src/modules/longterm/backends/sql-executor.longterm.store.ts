import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';
import { columnText, fromColumns } from './sql-row-format.js';
import type { VectorMatch } from '../recall/vector-match.js';
import { rangeParams } from '../recall/text-match.js';
import { pageAfter, startAfter } from './row-cursor.js';
import type { VectorCandidate } from './vector-scan.js';

/** The read statements of a server dialect (parameters: see each). */
export interface LongtermReadSql {
  /** entity, key, now */
  one: string;
  /** entity, lower, upper, now, limit */
  range: string;
  /** entity, lower, now, limit */
  rangeToEnd: string;
  /**
   * entity, model, now, lower, upper, upper (or NULL twice), updatedFrom, updatedTo → `key`,
   * `embedding` (never the value: a tombstone has no vector, so the value is not compared either)
   */
  vectors: string;
  /** The statement of `count` keys: entity, the keys (one array, or one parameter each), now */
  many(count: number): { name: string | null; sql: string; keysAsArray: boolean };
  /** after entity, after entity, after key, model, now, limit */
  unembedded: string;
}

/** The reads PostgreSQL and MariaDB share: the same statements and parameters, in each one's SQL. */
export abstract class SqlExecutorLongtermStore extends BaseLongtermStore {
  protected constructor(
    protected readonly sql: SqlExecutor,
    private readonly reads: LongtermReadSql,
    settings?: LongtermStoreSettings,
  ) {
    super(settings);
  }

  protected async readOne(entityId: string, key: string, now: number): Promise<StoredRow | null> {
    const [row] = await this.sql<Record<string, unknown>>('lt_one', this.reads.one, [
      entityId,
      key,
      now,
    ]);
    return row ? fromColumns(row) : null;
  }

  protected async readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]> {
    const rows =
      upper === undefined
        ? await this.sql<Record<string, unknown>>('lt_range_end', this.reads.rangeToEnd, [
            entityId,
            lower,
            now,
            limit,
          ])
        : await this.sql<Record<string, unknown>>('lt_range', this.reads.range, [
            entityId,
            lower,
            upper,
            now,
            limit,
          ]);
    return rows.map(fromColumns);
  }

  protected async readVectors(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<VectorCandidate[]> {
    const rows = await this.sql<{ key: unknown; embedding: Buffer }>(
      'lt_vectors',
      this.reads.vectors,
      [entityId, match.model, now, ...rangeParams(match)],
    );
    return rows.map((row) => ({ key: columnText(row.key), embedding: row.embedding }));
  }

  protected async readMany(entityId: string, keys: string[], now: number): Promise<StoredRow[]> {
    const { name, sql, keysAsArray } = this.reads.many(keys.length);
    const rows = await this.sql<Record<string, unknown>>(
      name,
      sql,
      keysAsArray ? [entityId, keys, now] : [entityId, ...keys, now],
    );
    return rows.map(fromColumns);
  }

  protected async readUnembedded(
    model: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): Promise<{ rows: StoredRow[]; cursor?: string }> {
    const after = startAfter(cursor);
    const rows = await this.sql<Record<string, unknown>>('lt_unembedded', this.reads.unembedded, [
      after.entityId,
      after.entityId,
      after.key,
      model,
      now,
      limit,
    ]);
    return pageAfter(rows.map(fromColumns), limit);
  }
}
