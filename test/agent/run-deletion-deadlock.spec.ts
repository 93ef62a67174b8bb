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
 * its caller. The deadlock is made on purpose: another session holds the second run's row, the
 * deletion takes the first run's and waits for the second, then the other session asks for the
 * first (checked to be locked by then, so the test cannot pass without a deadlock). Each server is
 * made to end the deletion: PostgreSQL checks for a deadlock first in the session that has waited
 * longest (the other session's check comes 5 s later), and InnoDB ends the transaction that has
 * changed fewer rows (the other session first changes 50). A MariaDB statement waiting for a row
 * lock shows as `Updating` in the process list.
 */
const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

/** A second session of one server: its own transaction, its own locks. */
interface OtherSession {
  begin(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<unknown>;
  /** The ids of the sessions waiting for a lock this session holds. */
  waitingOnMe(): Promise<unknown[]>;
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
    waitingOnMe: async () =>
      (
        await client.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        )
      ).rows.map((row) => row.pid),
    end: () => client.end(),
  };
}

async function mysqlSession(): Promise<OtherSession> {
  const connection = await mysql.createConnection(TEST_MYSQL_URL);
  return {
    begin: () => connection.query('BEGIN').then(() => undefined),
    query: (sql, params) => connection.query(sql, params),
    waitingOnMe: async () => {
      const [rows] = await connection.query(
        `SELECT id FROM information_schema.PROCESSLIST
         WHERE id <> CONNECTION_ID() AND state = 'Updating' AND info LIKE 'DELETE FROM agent_run_entries%'`,
      );
      return rows as unknown[];
    },
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
  } catch {
    await session.query('ROLLBACK TO SAVEPOINT probe');
    return true;
  }
  await session.query('ROLLBACK TO SAVEPOINT probe');
  return false;
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
    const prefix = `deadlock-${randomUUID()}`;
    // In key order: the deletion takes the first row's lock, then waits for the second's.
    const [first, second] = [`${prefix}-a`, `${prefix}-b`];
    for (const id of [first, second]) await store.put(id, 'status', 'v');
    const other = await openSession();
    let deleted: Promise<unknown> | undefined;
    try {
      await other.begin();
      // Weight for InnoDB's choice of the side it ends (ignored by PostgreSQL, rolled back below).
      for (let i = 0; i < 50; i += 1)
        await other.query(
          'INSERT INTO agent_run_entries (run_id, entry_key, value, expires_at) VALUES (?, ?, ?, ?)',
          [`${prefix}-weight`, `k${i}`, 'x', Date.now() + 60_000],
        );
      await other.query(
        "SELECT value FROM agent_run_entries WHERE run_id = ? AND entry_key = 'status' FOR UPDATE",
        [second],
      );
      deleted = store.deleteRuns([first, second]);
      for (let i = 0; (await other.waitingOnMe()).length === 0; i += 1) {
        if (i === 100) throw new Error('the deletion did not wait for the lock within 2 s');
        await sleep(20);
      }
      expect(await lockedElsewhere(other, first)).toBe(true);
      // Closes the cycle: the server ends the deletion, which lets this update through.
      await other.query("UPDATE agent_run_entries SET value = 'w' WHERE run_id = ?", [first]);
      await other.query('ROLLBACK');
      await deleted;
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      await other.end();
      await deleted?.catch(() => undefined);
    }
    expect([await store.get(first, 'status'), await store.get(second, 'status')]).toEqual([
      undefined,
      undefined,
    ]);
  }, 30_000);
});
