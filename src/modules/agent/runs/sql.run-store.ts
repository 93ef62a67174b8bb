import type { DataSource } from 'typeorm';
import type { SqlConnection } from '../../connections/connection-registry.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { type SqliteHandle, sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import { SqliteStatements } from '../../connections/sql/sqlite-statements.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import { orderedKey, parseOrderedKey } from './ordered-index.js';
import {
  DEFAULT_RUN_RETENTION_MS,
  type OrderedIndexEntry,
  type RunStore,
} from './run-store.interface.js';

interface DialectSql {
  /** Inserts, or revives an expired row; returns the value stored (PostgreSQL and SQLite, one statement). */
  putIfAbsent: string;
  get: string;
  put: string;
  /** value, expires at, run id, key, expected, now */
  replaceIf: string;
  /** run id, key */
  removeEntry: string;
  /** run id, now */
  keys: string;
  /** run id, now */
  entries: string;
  /** index, now, before key, limit: newest first, through the primary key */
  orderedPage: string;
  sweep: string;
}

const POSTGRES: DialectSql = {
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET
      value = CASE WHEN agent_run_entries.expires_at <= $5 THEN excluded.value ELSE agent_run_entries.value END,
      expires_at = CASE WHEN agent_run_entries.expires_at <= $5 THEN excluded.expires_at ELSE agent_run_entries.expires_at END
    RETURNING value`,
  get: 'SELECT value FROM agent_run_entries WHERE run_id = $1 AND entry_key = $2 AND expires_at > $3',
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  replaceIf: `UPDATE agent_run_entries SET value = $1, expires_at = $2
    WHERE run_id = $3 AND entry_key = $4 AND value = $5 AND expires_at > $6 RETURNING 1`,
  removeEntry: 'DELETE FROM agent_run_entries WHERE run_id = $1 AND entry_key = $2',
  keys: 'SELECT entry_key FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2',
  entries: 'SELECT entry_key, value FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2',
  orderedPage: `SELECT entry_key FROM agent_run_entries WHERE run_id = $1 AND expires_at > $2
    AND entry_key < $3 ORDER BY entry_key DESC LIMIT $4`,
  sweep: `DELETE FROM agent_run_entries WHERE ctid IN (
    SELECT ctid FROM agent_run_entries WHERE expires_at <= $1 LIMIT $2) RETURNING 1`,
};

const MYSQL: DialectSql = {
  // MySQL evaluates the assignments left to right: `value` is decided before `expires_at` changes.
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON DUPLICATE KEY UPDATE value = IF(expires_at <= ?, VALUES(value), value),
      expires_at = IF(expires_at <= ?, VALUES(expires_at), expires_at)`,
  get: 'SELECT value FROM agent_run_entries WHERE run_id = ? AND entry_key = ? AND expires_at > ?',
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON DUPLICATE KEY UPDATE value = VALUES(value), expires_at = VALUES(expires_at)`,
  // The value column compares bytes (utf8mb4_bin).
  replaceIf: `UPDATE agent_run_entries SET value = ?, expires_at = ?
    WHERE run_id = ? AND entry_key = ? AND value = ? AND expires_at > ?`,
  removeEntry: 'DELETE FROM agent_run_entries WHERE run_id = ? AND entry_key = ?',
  keys: 'SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  entries: 'SELECT entry_key, value FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  orderedPage: `SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?
    AND entry_key < ? ORDER BY entry_key DESC LIMIT ?`,
  sweep: 'DELETE FROM agent_run_entries WHERE expires_at <= ? LIMIT ?',
};

const SQLITE: DialectSql = {
  putIfAbsent: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET
      value = CASE WHEN agent_run_entries.expires_at <= ? THEN excluded.value ELSE agent_run_entries.value END,
      expires_at = CASE WHEN agent_run_entries.expires_at <= ? THEN excluded.expires_at ELSE agent_run_entries.expires_at END
    RETURNING value`,
  get: 'SELECT value FROM agent_run_entries WHERE run_id = ? AND entry_key = ? AND expires_at > ?',
  put: `INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (run_id, entry_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  replaceIf: `UPDATE agent_run_entries SET value = ?, expires_at = ?
    WHERE run_id = ? AND entry_key = ? AND value = ? AND expires_at > ?`,
  removeEntry: 'DELETE FROM agent_run_entries WHERE run_id = ? AND entry_key = ?',
  keys: 'SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  entries: 'SELECT entry_key, value FROM agent_run_entries WHERE run_id = ? AND expires_at > ?',
  orderedPage: `SELECT entry_key FROM agent_run_entries WHERE run_id = ? AND expires_at > ?
    AND entry_key < ? ORDER BY entry_key DESC LIMIT ?`,
  sweep: `DELETE FROM agent_run_entries WHERE rowid IN (
    SELECT rowid FROM agent_run_entries WHERE expires_at <= ? LIMIT ?)`,
};

/** Runs deleted per statement. */
const DELETE_CHUNK = 500;

/**
 * Run store on the package's SQL table `agent_run_entries` (PostgreSQL, MariaDB/MySQL, SQLite):
 * one row per entry, expiring with the retention; `sweep` deletes expired rows in bounded batches.
 */
export class SqlRunStore implements RunStore {
  private readonly sql: DialectSql;
  private readonly execute: SqlExecutor;
  private readonly sqlite?: SqliteHandle;
  private readonly statements?: SqliteStatements;
  private readonly dialect: SqlDialect;

  constructor(
    { dataSource, dialect }: SqlConnection,
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.dialect = dialect;
    this.sql = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE }[dialect];
    this.execute = createSqlExecutor(dataSource as DataSource, dialect);
    if (dialect === 'sqlite') {
      this.sqlite = sqliteHandle(dataSource);
      this.statements = new SqliteStatements(this.sqlite);
    }
  }

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    const now = this.now();
    const expiresAt = now + this.retentionMs;
    if (this.sqlite) {
      return this.statements!.get(this.sql.putIfAbsent)
        .pluck(true)
        .get(runId, key, value, expiresAt, now, now) as string;
    }
    if (this.dialect === 'postgres') {
      const [row] = await this.execute<{ value: string }>(
        'run_put_if_absent',
        this.sql.putIfAbsent,
        [runId, key, value, expiresAt, now],
      );
      return row!.value;
    }
    await this.execute('run_put_if_absent', this.sql.putIfAbsent, [
      runId,
      key,
      value,
      expiresAt,
      now,
      now,
    ]);
    return (await this.get(runId, key))!;
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    const now = this.now();
    if (this.sqlite)
      return this.statements!.get(this.sql.get).pluck(true).get(runId, key, now) as
        string | undefined;
    const [row] = await this.execute<{ value: string }>('run_get', this.sql.get, [runId, key, now]);
    return row?.value;
  }

  async entries(runId: string): Promise<Array<[string, string]>> {
    const now = this.now();
    type Row = { entry_key: unknown; value: string };
    const rows = this.sqlite
      ? (this.statements!.get(this.sql.entries).all(runId, now) as Row[])
      : await this.execute<Row>('run_entries', this.sql.entries, [runId, now]);
    return rows.map((row) => [String(row.entry_key), row.value]);
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    const expiresAt = this.now() + this.retentionMs;
    if (this.sqlite) {
      this.statements!.get(this.sql.put).run(runId, key, value, expiresAt);
      return;
    }
    await this.execute('run_put', this.sql.put, [runId, key, value, expiresAt]);
  }

  async replaceIf(runId: string, key: string, expected: string, value: string): Promise<boolean> {
    const now = this.now();
    const params = [value, now + this.retentionMs, runId, key, expected, now];
    if (this.sqlite) return this.statements!.get(this.sql.replaceIf).run(...params).changes === 1;
    const result: unknown = await this.execute('run_replace_if', this.sql.replaceIf, params);
    // PostgreSQL returns the updated row; mysql2 a result header.
    return Array.isArray(result)
      ? result.length === 1
      : (result as { affectedRows?: number }).affectedRows === 1;
  }

  async removeEntry(runId: string, key: string): Promise<void> {
    if (this.sqlite) this.statements!.get(this.sql.removeEntry).run(runId, key);
    else await this.execute('run_remove_entry', this.sql.removeEntry, [runId, key]);
  }

  /** An index is a run whose entries are keyed by run id; each row expires on its own. */
  addToIndex(index: string, runId: string): Promise<void> {
    return this.put(index, runId, '');
  }

  async indexed(index: string): Promise<string[]> {
    const now = this.now();
    const rows = this.sqlite
      ? (this.statements!.get(this.sql.keys).all(index, now) as Array<{ entry_key: unknown }>)
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
      ? (this.statements!.get(this.sql.orderedPage).all(...params) as Array<{ entry_key: unknown }>)
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
      if (this.dialect === 'postgres')
        await this.execute('run_delete', 'DELETE FROM agent_run_entries WHERE run_id = ANY($1)', [
          chunk,
        ]);
      else {
        const sql = `DELETE FROM agent_run_entries WHERE run_id IN (${chunk.map(() => '?').join(', ')})`;
        if (this.sqlite) this.sqlite.prepare(sql).run(...chunk);
        else await this.execute('run_delete', sql, chunk);
      }
    }
  }

  async sweep(limit: number): Promise<number> {
    const now = this.now();
    if (this.sqlite) return this.statements!.get(this.sql.sweep).run(now, limit).changes;
    const result: unknown = await this.execute('run_sweep', this.sql.sweep, [now, limit]);
    // PostgreSQL returns one row per deleted entry; mysql2 a result header.
    return Array.isArray(result)
      ? result.length
      : ((result as { affectedRows?: number }).affectedRows ?? 0);
  }
}
