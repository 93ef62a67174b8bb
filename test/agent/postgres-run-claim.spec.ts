import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { SqlRunStore } from '../../src/modules/agent/runs/sql.run-store.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

/**
 * PostgreSQL's one-statement claim locks the run's owner entry before its claim time; a deletion
 * of the run locks them in key order (claim time first). The two can deadlock: the claim, chosen
 * as the victim, runs again and binds the run once the other transaction is done.
 */
describe('PostgreSQL: a claim that deadlocks runs again', () => {
  const registry = new ConnectionRegistry();
  let store: SqlRunStore;
  const other = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  beforeAll(async () => {
    const { value } = await registry.acquireSql(
      { dialect: 'postgres', url: TEST_POSTGRES_URL },
      { migrationsRun: true, schema: AGENT_RUNS_SCHEMA },
    );
    store = new SqlRunStore(value);
    await other.connect();
  });
  afterAll(async () => {
    await other.end();
    await registry.onApplicationShutdown();
  });

  /** Until a backend waits for a lock the `other` client's transaction holds (at most 10 s). */
  async function untilBlockedBy(client: pg.Client): Promise<void> {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(10)) {
      const waiting = await store['execute']<{ n: string }>(
        null,
        'SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
        [rows[0]!.pid],
      );
      if (Number(waiting[0]!.n) > 0) return;
    }
    throw new Error('nothing waited for the other transaction within 10 s');
  }

  it('binds the run after the deadlock is resolved', async () => {
    const runId = `pg-claim-${process.pid}-${Date.now()}`;
    const claim = {
      runId,
      ownerKey: 'conversation',
      owner: 'c-1',
      readKey: 'status',
      atKey: 'claimedAt',
      at: Date.now(),
      atOfRead: 'createdAt',
      orderedIndex: `#o:${runId}`,
      indexes: [],
    };
    await store.claim(claim);
    // A deletion of the run mid-way: it holds the claim time's row, and next wants the owner's.
    await other.query('BEGIN');
    await other.query(
      "SELECT 1 FROM agent_run_entries WHERE run_id = $1 AND entry_key = 'claimedAt' FOR UPDATE",
      [runId],
    );
    const claimed = store.claim(claim); // takes the owner's row, waits for the claim time's
    await untilBlockedBy(other);
    const deleting = other.query(
      "DELETE FROM agent_run_entries WHERE run_id = $1 AND entry_key = 'conversation'",
      [runId],
    );
    // One of the two is picked as the deadlock victim after deadlock_timeout (1 s by default).
    const outcome = await deleting.then(
      () => 'deleted',
      () => 'victim',
    );
    await other.query(outcome === 'deleted' ? 'COMMIT' : 'ROLLBACK');
    expect(await claimed).toMatchObject({ owner: 'c-1', bound: true });
    expect(await store.get(runId, 'conversation')).toBe('c-1');
    await store.deleteRuns([runId, claim.orderedIndex]);
  });
});
