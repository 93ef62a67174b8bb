import type { Statement } from 'better-sqlite3';
import type { SqliteHandle } from './sqlite-handle.js';

/** The prepared statements of one SQLite handle, each prepared once on first use. */
export class SqliteStatements {
  private readonly cache = new Map<string, Statement<unknown[]>>();

  constructor(private readonly handle: SqliteHandle) {}

  /** The statement of `sql`, prepared the first time it is asked for. */
  get(sql: string): Statement<unknown[]> {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.handle.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}
