import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { SqlRunStore } from '../../src/modules/agent/runs/sql.run-store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL } from '../support/test-databases.js';

/**
 * A deletion of runs that the server ends as one side of a deadlock runs again instead of failing
 * its caller. The deadlock is made on purpose: another session holds one run's row, the deletion
 * takes the other run's and waits for the first, then the other session asks for the row the
 * deletion holds (checked to be held by then, so the test cannot pass without a deadlock). Each
 * server is made to end the deletion: PostgreSQL checks for a deadlock first in the session that
 * has waited longest (the other session's check comes 5 s later), and InnoDB ends the transaction
 * that has changed fewer rows (the other session first changes 50).
 */
const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

/** A second session of one server: its own transaction, its own locks. */
interface OtherSession {
  begin(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<unknown>;
  /** Whether another session waits for a lock this session holds. */
  isWaitedOn(): Promise<boolean>;
  /** Whether `error` says a row is locked (`FOR UPDATE NOWAIT`). */
  isLockedError(error: unknown): boolean;
  end(): Promise<void>;
}

async function postgresSession(): Promise<OtherSession> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  return {
    begin: async () => {
      await client.query('BEGIN');
      await client.query("SET LOCAL deadlock_timeout = '5s'");
    },
    query: (sql, params) => {
      let n = 0;
      return client.query(
        sql.replace(/\?/g, () => `$${(n += 1)}`),
        params,
      );
    },
    isWaitedOn: async () =>
      (
        await client.query(
          'SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        )
      ).rows.length > 0,
    isLockedError: (error) => (error as { code?: unknown }).code === '55P03',
    end: () => client.end(),
  };
}

async function mysqlSession(): Promise<OtherSession> {
  const connection = await mysql.createConnection(TEST_MYSQL_URL);
  return {
    begin: () => connection.query('BEGIN').then(() => undefined),
    query: (sql, params) => connection.query(sql, params),
    isWaitedOn: async () => {
      const [rows] = await connection.query(
        `SELECT 1 FROM information_schema.INNODB_LOCK_WAITS w
           JOIN information_schema.INNODB_TRX t ON t.trx_id = w.blocking_trx_id
         WHERE t.trx_mysql_thread_id = CONNECTION_ID()`,
      );
      return (rows as unknown[]).length > 0;
    },
    // MariaDB answers NOWAIT with "lock wait timeout" (1205), MySQL with ER_LOCK_NOWAIT (3572).
    isLockedError: (error) => [1205, 3572].includes((error as { errno?: number }).errno ?? 0),
    end: () => connection.end(),
  };
}

/** Whether another transaction holds a lock on `runId`'s rows (asked without waiting). */
async function lockedElsewhere(session: OtherSession, runId: string): Promise<boolean> {
  await session.query('SAVEPOINT probe');
  try {
    await session.query('SELECT 1 FROM agent_run_entries WHERE run_id = ? FOR UPDATE NOWAIT', [
      runId,
    ]);
    return false;
  } catch (error) {
    if (!session.isLockedError(error)) throw error;
    return true;
  } finally {
    await session.query('ROLLBACK TO SAVEPOINT probe');
  }
}

/** Waits (bounded) for the deletion to wait on the other session's lock. */
async function untilWaitedOn(session: OtherSession): Promise<void> {
  // InnoDB's lock tables are a cache refreshed only when not read for 0.1 s: ask less often.
  for (let i = 0; !(await session.isWaitedOn()); i += 1) {
    if (i === 30) throw new Error('the deletion did not wait for the lock within 4.5 s');
    await sleep(150);
  }
}

describe.each([
  ['postgres', TEST_POSTGRES_URL, postgresSession],
  ['mysql', TEST_MYSQL_URL, mysqlSession],
] as const)('%s: deleting runs', (dialect, url, openSession) => {
  it('runs again when the server ends it as one side of a deadlock', async () => {
    const store = new SqlRunStore(
      (
        await registry.acquireSql(
          { dialect, url },
          { migrationsRun: true, schema: AGENT_RUNS_SCHEMA },
        )
      ).value,
      60_000,
    );
    // The deletion locks its rows in the order its plan reads them (key order on an index, the
    // table's order on a scan): a try where it reads the held row first holds nothing while it
    // waits, so there is no deadlock to make; then it runs to its end and the next try starts.
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const prefix = `deadlock-${randomUUID()}`;
      const [first, held] = [`${prefix}-a`, `${prefix}-b`];
      for (const id of [first, held]) await store.put(id, 'status', 'v');
      const other = await openSession();
      let deleted: Promise<unknown> | undefined;
      let deadlocked = false;
      try {
        await other.begin();
        // Weight for InnoDB's choice of the side it ends (PostgreSQL ignores it; rolled back).
        for (let i = 0; i < 50; i += 1)
          await other.query(
            'INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)',
            [`${prefix}-weight`, `k${i}`, 'x', Date.now() + 60_000],
          );
        await other.query(
          "SELECT value FROM agent_run_entries WHERE run_id = ? AND entry_key = 'status' FOR UPDATE",
          [held],
        );
        deleted = store.deleteRuns([first, held]);
        await untilWaitedOn(other);
        if (await lockedElsewhere(other, first)) {
          // Closes the cycle: the server ends the deletion, which lets this update through.
          await other.query("UPDATE agent_run_entries SET value = 'w' WHERE run_id = ?", [first]);
          deadlocked = true;
        }
        await other.query('ROLLBACK');
        await deleted;
      } finally {
        await other.query('ROLLBACK').catch(() => undefined);
        await other.end();
        await deleted?.catch(() => undefined);
      }
      expect([await store.get(first, 'status'), await store.get(held, 'status')]).toEqual([
        undefined,
        undefined,
      ]);
      if (deadlocked) return;
    }
    throw new Error('no try made the deletion hold one row while it waited for the other');
  }, 60_000);
});
