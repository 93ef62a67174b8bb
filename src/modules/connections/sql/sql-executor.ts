import type { DataSource } from 'typeorm';
import { PgPipelineLanes, type PgPoolLike } from './pg-pipeline-lanes.js';
import type { SqlDialect } from './sql-target.js';

/**
 * Runs one parameterized statement and resolves with its rows: prepared under `name` (planned once
 * per connection), or, with `null`, planned on every call for its parameters.
 */
export type SqlExecutor = <Row>(
  name: string | null,
  sql: string,
  params: readonly unknown[],
) => Promise<Row[]>;

interface Mysql2Pool {
  execute(
    sql: string,
    values: readonly unknown[],
    callback: (error: Error | null, rows: unknown) => void,
  ): void;
}

/**
 * The hot-path executor of a DataSource: statements go straight to the pool TypeORM opened, as
 * server-side prepared statements (PostgreSQL named statements, mysql2 `execute`), so a hot query
 * is parsed and planned once per connection instead of on every call. On PostgreSQL with `pg`
 * 8.23 or later they go over the pool's pipelined lanes (`PgPipelineLanes`) instead: concurrent
 * statements no longer wait for each other's round trips. Falls back to `dataSource.query` where
 * the pool is not a plain one (e.g. MySQL replication).
 */
export function createSqlExecutor(dataSource: DataSource, dialect: SqlDialect): SqlExecutor {
  const driver = dataSource.driver as unknown as { master?: PgPoolLike; pool?: Mysql2Pool };
  if (dialect === 'postgres' && driver.master) {
    const pool = PgPipelineLanes.of(driver.master) ?? driver.master;
    return async <Row>(name: string | null, text: string, values: readonly unknown[]) =>
      (
        await pool.query(
          name === null ? { text, values } : { name: `agent_memory_${name}`, text, values },
        )
      ).rows as Row[];
  }
  if (dialect === 'mysql' && driver.pool) {
    const pool = driver.pool;
    return <Row>(_name: string | null, sql: string, values: readonly unknown[]) =>
      new Promise<Row[]>((resolve, reject) =>
        pool.execute(sql, values, (error, rows) =>
          error ? reject(error) : resolve(rows as Row[]),
        ),
      );
  }
  return async <Row>(_name: string | null, sql: string, params: readonly unknown[]) =>
    (await dataSource.query(sql, [...params])) as Row[];
}
