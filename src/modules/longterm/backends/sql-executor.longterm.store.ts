import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';
import { fromColumns } from './sql-row-format.js';

/** The read statements of a server dialect (parameters: see each). */
export interface LongtermReadSql {
  /** entity, key, now */
  one: string;
  /** entity, lower, upper, now, limit */
  range: string;
  /** entity, lower, now, limit */
  rangeToEnd: string;
}

/** The reads PostgreSQL and MariaDB share: the same statements, in each one's SQL. */
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
}
