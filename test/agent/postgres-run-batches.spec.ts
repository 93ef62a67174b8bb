import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { SqlRunStore } from '../../src/modules/agent/runs/sql.run-store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

/**
 * PostgreSQL's batched compare-and-sets of run records, where they could differ from one statement
 * per row: a row the server refuses, a connection lost mid-batch, a row waiting for a lock, ids the
 * database holds as one, and one entry's writes in a burst.
 */
const registry = new ConnectionRegistry();
const other = new pg.Client({ connectionString: TEST_POSTGRES_URL });
await other.connect();
afterAll(async () => {
  await other.end();
  await registry.onApplicationShutdown();
});

const store = new SqlRunStore(
  (
    await registry.acquireSql(
      { dialect: 'postgres', url: TEST_POSTGRES_URL },
      { migrationsRun: true, schema: AGENT_RUNS_SCHEMA },
    )
  ).value,
  60_000,
);
const runId = () => `batch-${randomUUID()}`;

/** Stored runs, each `status` holding `v`. */
async function stored(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, runId);
  await Promise.all(ids.map((id) => store.put(id, 'status', 'v')));
  return ids;
}

/** Holds `id`'s row locked in another session until the returned function is first called. */
async function lockRow(id: string): Promise<() => Promise<unknown>> {
  await other.query('BEGIN');
  await other.query(
    "SELECT 1 FROM agent_run_entries WHERE run_id = $1 AND entry_key = 'status' FOR UPDATE",
    [id],
  );
  let released: Promise<unknown> | undefined;
  return () => (released ??= other.query('ROLLBACK'));
}

/**
 * Waits (bounded) for a backend to wait for the lock the other session holds; answers its pid.
 * Only that one: the suite runs beside others that wait on locks of their own.
 */
async function backendWaitingOnLock(): Promise<number> {
  for (let i = 0; i < 100; i += 1) {
    const { rows } = await other.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
    );
    if (rows[0]) return rows[0].pid;
    await sleep(20);
  }
  throw new Error('no backend waited on the lock within 2 s');
}

describe('PostgreSQL run records written in batches', () => {
  it('fails only the caller whose row the server refuses', async () => {
    const [decoy, ...ids] = await stored(4);
    // The decoy goes alone; the three behind it go as one batch, which the NUL makes fail.
    const outcomes = Promise.allSettled([
      store.replaceIf(decoy!, 'status', 'v', 'w'),
      store.replaceIf(ids[0]!, 'status', 'v', 'w'),
      store.replaceIf(ids[1]!, 'status', 'v', 'nul \u0000 inside'),
      store.replaceIf(ids[2]!, 'status', 'nope', 'w'),
    ]);
    expect((await outcomes).map((o) => (o.status === 'fulfilled' ? o.value : 'error'))).toEqual([
      true,
      true,
      'error',
      false,
    ]);
    expect(await Promise.all(ids.map((id) => store.get(id, 'status')))).toEqual(['w', 'v', 'v']);
  });

  it('leaves each row of a batch whose backend is terminated either written or refused', async () => {
    const [decoy, ...ids] = await stored(4);
    const release = await lockRow(ids[1]!);
    let outcomes: Array<PromiseSettledResult<boolean>>;
    try {
      const settled = Promise.allSettled(ids.map((id) => store.replaceIf(id, 'status', 'v', 'w')));
      // The batch waits on the lock; its backend ends with an error (FATAL, nothing committed), so
      // its rows are written again one by one, on a new connection or refused with the old one.
      await other.query('SELECT pg_terminate_backend($1)', [await backendWaitingOnLock()]);
      await release();
      outcomes = await settled;
    } finally {
      await release();
    }
    const rows = await Promise.all(ids.map((id) => store.get(id, 'status')));
    outcomes.forEach((outcome, i) =>
      expect([outcome.status === 'fulfilled' && outcome.value, rows[i]]).toEqual(
        outcome.status === 'fulfilled' ? [true, 'w'] : [false, 'v'],
      ),
    );
    expect(await store.replaceIf(decoy!, 'status', 'v', 'w')).toBe(true);
  });

  it('does not hold other runs back while one row waits for a lock', async () => {
    const [locked, free] = await stored(2);
    const release = await lockRow(locked!);
    try {
      const waiting = store.replaceIf(locked!, 'status', 'v', 'w');
      await backendWaitingOnLock();
      const started = performance.now();
      expect(await store.replaceIf(free!, 'status', 'v', 'w')).toBe(true);
      // The lock is held for as long as the test lasts: the free run did not wait for it.
      expect(performance.now() - started).toBeLessThan(5_000);
      await release();
      expect(await waiting).toBe(true);
    } finally {
      await release();
    }
  });

  it('counts one of two ids the database holds as one, not both nor neither', async () => {
    // Lone surrogates differ in JavaScript and both arrive as U+FFFD.
    const [decoy] = await stored(1);
    const suffix = randomUUID();
    await store.put(`s-${suffix}-\ud800`, 'status', 'v');
    const outcomes = await Promise.all([
      store.replaceIf(decoy!, 'status', 'v', 'w'),
      store.replaceIf(`s-${suffix}-\ud800`, 'status', 'v', 'first'),
      store.replaceIf(`s-${suffix}-\udc00`, 'status', 'v', 'second'),
    ]);
    expect(outcomes[0]).toBe(true);
    expect(outcomes.slice(1).filter(Boolean)).toHaveLength(1);
    const winner = outcomes[1] ? 'first' : 'second';
    expect(await store.get(`s-${suffix}-\ud800`, 'status')).toBe(winner);
  });

  it("applies one entry's compare-and-sets of a burst in the order they came", async () => {
    const [id] = await stored(1);
    const chain = ['v', 'a', 'b', 'c', 'd'];
    const outcomes = await Promise.all(
      chain.slice(1).map((next, i) => store.replaceIf(id!, 'status', chain[i]!, next)),
    );
    expect(outcomes).toEqual([true, true, true, true]);
    expect(await store.get(id!, 'status')).toBe('d');
  });
});
