import type { DataSource } from 'typeorm';
import type { SqlConnection } from '../../connections/connection-registry.js';
import {
  INNODB_DEADLOCK,
  POSTGRES_DEADLOCK,
  retryTransaction,
} from '../../connections/sql/retry-on-deadlock.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { SqliteGroupCommit } from '../../connections/sql/sqlite-group-commit.js';
import { type SqliteHandle, sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import { SqliteStatements } from '../../connections/sql/sqlite-statements.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import { orderedKey, parseOrderedKey } from './ordered-index.js';
import { claimOnPostgres } from './postgres-run-claim.js';
import { type ReplaceRow, postgresReplaces } from './postgres-replace-batch.js';
import {
  type DialectSql,
  MYSQL,
  POSTGRES,
  POSTGRES_PUT_IF_ABSENT_GUARDED,
  SQLITE,
} from './sql-run-statements.js';
import { type RunClaim, type RunClaimed, claimInSteps, claimInStepsSync } from './run-claim.js';
import {
  DEFAULT_RUN_RETENTION_MS,
  type GuardedPut,
  type OrderedIndexEntry,
  type RunStore,
} from './run-store.interface.js';

/** Runs deleted per statement. */
const DELETE_CHUNK = 500;

/**
 * Run store on the package's SQL table `agent_run_entries` (PostgreSQL, MariaDB/MySQL, SQLite):
 * one row per entry, expiring with the retention; `sweep` deletes expired rows in bounded batches.
 */
export class SqlRunStore implements RunStore {
  private readonly sql: DialectSql;
  private readonly execute: SqlExecutor;
  /** SQLite's handle, prepared statements and writes, committed in groups (undefined elsewhere). */
  private readonly sqlite?: {
    handle: SqliteHandle;
    statements: SqliteStatements;
    writes: SqliteGroupCommit;
  };
  private readonly dialect: SqlDialect;
  /** PostgreSQL's compare-and-sets, several runs' in one statement while one is in flight. */
  private readonly replaces?: (row: ReplaceRow) => Promise<boolean>;

  constructor(
    { dataSource, dialect }: SqlConnection,
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.dialect = dialect;
    this.sql = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE }[dialect];
    this.execute = createSqlExecutor(dataSource as DataSource, dialect);
    if (dialect === 'sqlite') {
      const handle = sqliteHandle(dataSource);
      this.sqlite = {
        handle,
        statements: new SqliteStatements(handle),
        writes: SqliteGroupCommit.of(handle),
      };
    }
    if (dialect === 'postgres')
      this.replaces = postgresReplaces(this.execute, { now, retentionMs });
  }

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    if (this.sqlite) return this.sqlite.writes.run(() => this.sqlitePutIfAbsent(runId, key, value));
    return this.serverPutIfAbsent(runId, key, value);
  }

  /**
   * One commit on SQLite (a synchronous transaction) and PostgreSQL (one statement); on
   * MariaDB/MySQL the two puts in turn (each as `putIfAbsent`: an interruption between them leaves
   * the guard alone stored, which is what the guard is for).
   */
  async putIfAbsentGuarded(
    runId: string,
    guard: readonly [string, string],
    entry: readonly [string, string],
  ): Promise<GuardedPut> {
    if (this.sqlite)
      return this.sqlite.writes.run((): GuardedPut => {
        const stored = this.sqlitePutIfAbsent(runId, ...guard);
        if (stored !== guard[1]) return { guard: stored };
        return { guard: stored, entry: this.sqlitePutIfAbsent(runId, ...entry) };
      });
    if (this.dialect === 'postgres') {
      const now = this.now();
      const [row] = await this.execute<{ guard: string; entry: string | null }>(
        'run_put_if_absent_guarded',
        POSTGRES_PUT_IF_ABSENT_GUARDED,
        [runId, ...guard, ...entry, now + this.retentionMs, now],
      );
      return row!.entry === null ? { guard: row!.guard } : { guard: row!.guard, entry: row!.entry };
    }
    const stored = await this.serverPutIfAbsent(runId, ...guard);
    if (stored !== guard[1]) return { guard: stored };
    return { guard: stored, entry: await this.serverPutIfAbsent(runId, ...entry) };
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    if (this.sqlite) return this.sqliteGet(runId, key);
    return this.serverGet(runId, key);
  }

  /**
   * The claim in one commit: on SQLite a synchronous transaction, which nothing else on the
   * connection can interleave with; on PostgreSQL one statement (a legacy run, recorded before
   * claims were timed, by the steps).
   */
  async claim(claim: RunClaim): Promise<RunClaimed> {
    if (this.sqlite) {
      const ops = {
        putIfAbsent: (runId: string, key: string, value: string) =>
          this.sqlitePutIfAbsent(runId, key, value),
        get: (runId: string, key: string) => this.sqliteGet(runId, key),
        addToOrderedIndex: (index: string, runId: string, at: number) =>
          this.sqlitePut(index, orderedKey({ at, runId }), ''),
        addToIndex: (index: string, runId: string) => this.sqlitePut(index, runId, ''),
      };
      return this.sqlite.writes.run(() => claimInStepsSync(ops, claim));
    }
    if (this.dialect === 'postgres')
      return claimOnPostgres(
        this.execute,
        claim,
        { now: this.now(), retentionMs: this.retentionMs },
        (legacy) => claimInSteps(this, legacy),
      );
    // MariaDB/MySQL: the steps in turn (measured: a transaction around them, one commit, cost more
    // in round trips than the commits it saved).
    return claimInSteps(this, claim);
  }

  /** SQLite's prepared statements (only called on SQLite). */
  private get statements(): SqliteStatements {
    return this.sqlite!.statements;
  }

  private sqlitePutIfAbsent(runId: string, key: string, value: string): string {
    const now = this.now();
    return this.statements
      .get(this.sql.putIfAbsent)
      .pluck(true)
      .get(runId, key, value, now + this.retentionMs, now, now) as string;
  }

  private sqliteGet(runId: string, key: string): string | undefined {
    return this.statements.get(this.sql.get).pluck(true).get(runId, key, this.now()) as
      string | undefined;
  }

  private sqlitePut(runId: string, key: string, value: string): void {
    this.statements.get(this.sql.put).run(runId, key, value, this.now() + this.retentionMs);
  }

  private async serverPutIfAbsent(runId: string, key: string, value: string): Promise<string> {
    const now = this.now();
    const params = [runId, key, value, now + this.retentionMs, now];
    if (this.dialect === 'postgres') {
      const [row] = await this.execute<{ value: string }>(
        'run_put_if_absent',
        this.sql.putIfAbsent,
        params,
      );
      return row!.value;
    }
    await this.execute('run_put_if_absent', this.sql.putIfAbsent, [...params, now]);
    return (await this.serverGet(runId, key))!;
  }

  private async serverGet(runId: string, key: string): Promise<string | undefined> {
    const [row] = await this.execute<{ value: string }>('run_get', this.sql.get, [
      runId,
      key,
      this.now(),
    ]);
    return row?.value;
  }

  private async serverPut(runId: string, key: string, value: string): Promise<void> {
    await this.execute('run_put', this.sql.put, [runId, key, value, this.now() + this.retentionMs]);
  }

  async entries(runId: string): Promise<Array<[string, string]>> {
    const now = this.now();
    type Row = { entry_key: unknown; value: string };
    const rows = this.sqlite
      ? (this.statements.get(this.sql.entries).all(runId, now) as Row[])
      : await this.execute<Row>('run_entries', this.sql.entries, [runId, now]);
    return rows.map((row) => [String(row.entry_key), row.value]);
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    if (this.sqlite) await this.sqlite.writes.run(() => this.sqlitePut(runId, key, value));
    else await this.serverPut(runId, key, value);
  }

  async replaceIf(runId: string, key: string, expected: string, value: string): Promise<boolean> {
    // PostgreSQL's take their time when their batch is sent (a row may wait for one in flight).
    if (this.replaces) return this.replaces({ runId, key, expected, value });
    const now = this.now();
    const params = [value, now + this.retentionMs, runId, key, expected, now];
    if (this.sqlite)
      return this.sqlite.writes.run(
        () => this.statements.get(this.sql.replaceIf).run(...params).changes === 1,
      );
    const result: unknown = await this.execute('run_replace_if', this.sql.replaceIf, params);
    // mysql2 answers a result header.
    return (result as { affectedRows?: number }).affectedRows === 1;
  }

  async removeEntry(runId: string, key: string): Promise<void> {
    if (this.sqlite)
      await this.sqlite.writes.run(() => this.statements.get(this.sql.removeEntry).run(runId, key));
    else await this.execute('run_remove_entry', this.sql.removeEntry, [runId, key]);
  }

  /** An index is a run whose entries are keyed by run id; each row expires on its own. */
  addToIndex(index: string, runId: string): Promise<void> {
    return this.put(index, runId, '');
  }

  async indexed(index: string): Promise<string[]> {
    const now = this.now();
    const rows = this.sqlite
      ? (this.statements.get(this.sql.keys).all(index, now) as Array<{ entry_key: unknown }>)
      : await this.execute<{ entry_key: unknown }>('run_keys', this.sql.keys, [index, now]);
    // Binary columns (MariaDB) come back as buffers.
    return rows.map((row) => String(row.entry_key));
  }

  addToOrderedIndex(index: string, runId: string, at: number): Promise<void> {
    return this.put(index, orderedKey({ at, runId }), '');
  }

  async orderedPage(
    index: string,
    limit: number,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]> {
    // Keys start with digits: `~` sorts after every one.
    const params = [index, this.now(), before ? orderedKey(before) : '~', limit];
    const rows = this.sqlite
      ? (this.statements.get(this.sql.orderedPage).all(...params) as Array<{ entry_key: unknown }>)
      : await this.execute<{ entry_key: unknown }>(
          'run_ordered_page',
          this.sql.orderedPage,
          params,
        );
    return rows.map((row) => parseOrderedKey(String(row.entry_key)));
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    // Ranges on the (run_id, entry_key) primary key, a bounded number of runs per statement.
    for (let i = 0; i < runIds.length; i += DELETE_CHUNK) {
      const chunk = runIds.slice(i, i + DELETE_CHUNK);
      const postgres = this.dialect === 'postgres';
      const sql = postgres
        ? 'DELETE FROM agent_run_entries WHERE run_id = ANY($1)'
        : `DELETE FROM agent_run_entries WHERE run_id IN (${chunk.map(() => '?').join(', ')})`;
      if (this.sqlite) {
        const statement = this.sqlite.handle.prepare(sql);
        await this.sqlite.writes.run(() => statement.run(...chunk));
        continue;
      }
      // A deletion locks its runs' rows in the order its plan reads them, while a claim or a batch
      // of compare-and-sets may hold one and wait for another: the server ends one side of that
      // deadlock, and a deletion it ends runs again (each chunk commits alone; deleting twice is
      // safe).
      await retryTransaction(postgres ? POSTGRES_DEADLOCK : INNODB_DEADLOCK, () =>
        this.execute('run_delete', sql, postgres ? [chunk] : chunk),
      );
    }
  }

  async sweep(limit: number): Promise<number> {
    const now = this.now();
    if (this.sqlite)
      return this.sqlite.writes.run(
        () => this.statements.get(this.sql.sweep).run(now, limit).changes,
      );
    const result: unknown = await this.execute('run_sweep', this.sql.sweep, [now, limit]);
    // PostgreSQL returns one row per deleted entry; mysql2 a result header.
    return Array.isArray(result)
      ? result.length
      : ((result as { affectedRows?: number }).affectedRows ?? 0);
  }
}
