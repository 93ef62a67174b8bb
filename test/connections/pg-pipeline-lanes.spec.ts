import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import {
  PgPipelineLanes,
  STALLED_AFTER_MS,
} from '../../src/modules/connections/sql/pg-pipeline-lanes.js';
import {
  type SqlExecutor,
  createSqlExecutor,
} from '../../src/modules/connections/sql/sql-executor.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

/** A DataSource on the test database whose connections carry their own application name. */
async function openDataSource(extra: Record<string, unknown> = {}) {
  const name = `agent-memory-lanes-${randomUUID().slice(0, 8)}`;
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('application_name', name);
  const dataSource = await new DataSource({
    type: 'postgres',
    url: url.toString(),
    extra,
  }).initialize();
  return { name, dataSource, execute: createSqlExecutor(dataSource, 'postgres') };
}

/** `jest.useFakeTimers` options that fake only `Date`. */
const ONLY_THE_CLOCK = {
  doNotFake: [
    'hrtime',
    'nextTick',
    'performance',
    'queueMicrotask',
    'setImmediate',
    'clearImmediate',
    'setInterval',
    'clearInterval',
    'setTimeout',
    'clearTimeout',
  ],
} satisfies Parameters<typeof jest.useFakeTimers>[0];

interface PoolCounts {
  totalCount: number;
}

describe('PostgreSQL statements over pipelined lanes', () => {
  let admin: DataSource;
  const opened: DataSource[] = [];

  beforeAll(async () => {
    admin = await new DataSource({ type: 'postgres', url: TEST_POSTGRES_URL }).initialize();
  });
  afterAll(async () => {
    for (const dataSource of opened) if (dataSource.isInitialized) await dataSource.destroy();
    await admin?.destroy();
  });

  /** Backends open under `name` now, by pid. */
  async function backends(name: string): Promise<number[]> {
    const rows = (await admin.query(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [name],
    )) as Array<{ pid: number }>;
    return rows.map((row) => row.pid);
  }

  /** Polls (at most 3 s) until no backend runs under `name`. */
  async function gone(name: string): Promise<number[]> {
    let left = await backends(name);
    for (let i = 0; i < 60 && left.length > 0; i += 1) {
      await sleep(50);
      left = await backends(name);
    }
    return left;
  }

  async function open(extra?: Record<string, unknown>) {
    const made = await openDataSource(extra);
    opened.push(made.dataSource);
    return made;
  }

  const pidOf = (execute: SqlExecutor, n: number) =>
    execute<{ n: number; pid: number }>(
      'lanes_echo',
      'SELECT $1::int AS n, pg_backend_pid() AS pid',
      [n],
    );

  it('answers 300 concurrent statements each with its own rows, over two connections beside the pool', async () => {
    const { dataSource, execute } = await open();
    const pool = (dataSource.driver as unknown as { master: PoolCounts }).master;
    const poolBefore = pool.totalCount;
    const rows = await Promise.all(Array.from({ length: 300 }, (_, n) => pidOf(execute, n)));
    expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(new Set(rows.map(([row]) => row!.pid)).size).toBe(2);
    // Through the pool these would have spread over up to 10 pooled connections.
    expect(pool.totalCount).toBe(poolBefore);
  });

  it("does not count the process's own pause as a stalled lane, in its burst or after", async () => {
    const { dataSource, execute } = await open();
    const pool = (dataSource.driver as unknown as { master: PoolCounts }).master;
    const poolBefore = pool.totalCount;
    // Only the clock is faked: it moves when the test says, so nothing but the pause ages a statement.
    jest.useFakeTimers(ONLY_THE_CLOCK);
    try {
      const first = Array.from({ length: 100 }, (_, n) => pidOf(execute, n));
      jest.setSystemTime(Date.now() + STALLED_AFTER_MS + 20); // a GC or a busy core, mid-burst
      // One statement held on each lane keeps the rest of the burst waiting once the first part is
      // answered, when the next statements come.
      const held = [1, 2].map(() => execute('lanes_hold', 'SELECT pg_sleep(0.3)', []));
      const second = Array.from({ length: 100 }, (_, n) => pidOf(execute, 100 + n));
      await Promise.all(first);
      const third = Array.from({ length: 20 }, (_, n) => pidOf(execute, 200 + n));
      const rows = await Promise.all([...first, ...second, ...third]);
      await Promise.all(held);
      expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 220 }, (_, n) => n));
      expect(new Set(rows.map(([row]) => row!.pid)).size).toBe(2);
      expect(pool.totalCount).toBe(poolBefore);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps to one connection while statements come one at a time', async () => {
    const { execute } = await open();
    const pids = new Set<number>();
    for (let n = 0; n < 20; n += 1) pids.add((await pidOf(execute, n))[0]!.pid);
    expect(pids.size).toBe(1);
  });

  it('fails a failing statement alone: the ones written before and after it on its lane succeed', async () => {
    const { execute } = await open();
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, n) =>
        n % 10 === 5
          ? execute('lanes_divide', 'SELECT 1 / ($1::int - $1::int) AS never', [n])
          : pidOf(execute, n),
      ),
    );
    results.forEach((result, n) => {
      if (n % 10 === 5) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
      } else {
        expect(result.status).toBe('fulfilled');
        expect((result as PromiseFulfilledResult<Array<{ n: number }>>).value[0]!.n).toBe(n);
      }
    });
  });

  it('fails the statements in flight on a terminated connection, then serves on a new one', async () => {
    const { name, execute } = await open();
    const { pid } = (await pidOf(execute, 1))[0]!;
    const sleeping = execute('lanes_sleep', 'SELECT pg_sleep(5)', []);
    for (let i = 0; i < 60; i += 1) {
      const rows = (await admin.query(
        "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'SELECT pg_sleep%'",
        [name],
      )) as unknown[];
      if (rows.length > 0) break;
      await sleep(50);
    }
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    // Sent the moment the statement fails, before the socket's end can arrive: the lane went
    // with the FATAL error, so this one opens a new lane instead of dying with the old one.
    const failed = await sleeping.then(
      () => undefined,
      (error: unknown) => ({ error, rows: pidOf(execute, 2) }),
    );
    expect(failed?.error).toMatchObject({ severity: 'FATAL', code: '57P01' });
    const { pid: after } = (await failed!.rows)[0]!;
    expect(after).not.toBe(pid);
  });

  it('ends its connections when the DataSource is destroyed; later statements are refused', async () => {
    const { name, dataSource, execute } = await open();
    await Promise.all(Array.from({ length: 50 }, (_, n) => pidOf(execute, n)));
    expect((await backends(name)).length).toBeGreaterThanOrEqual(2);
    await dataSource.destroy();
    expect(await gone(name)).toEqual([]);
    await expect(pidOf(execute, 1)).rejects.toThrow(/pool/i);
  });

  it("closes lanes idle for the pool's idle timeout", async () => {
    const { name, execute } = await open({ idleTimeoutMillis: 200 });
    await Promise.all(Array.from({ length: 50 }, (_, n) => pidOf(execute, n)));
    expect((await backends(name)).length).toBeGreaterThanOrEqual(2);
    expect(await gone(name)).toEqual([]);
    // And opens again when needed.
    expect((await pidOf(execute, 7))[0]!.n).toBe(7);
  });

  it('sends new statements past stalled lanes to the pool', async () => {
    const { execute } = await open();
    let sleptOut = false;
    const sleeps = Promise.all([
      execute('lanes_sleep_half', 'SELECT pg_sleep(0.5)', []),
      execute('lanes_sleep_half', 'SELECT pg_sleep(0.5)', []),
    ]).then(() => (sleptOut = true));
    await sleep(STALLED_AFTER_MS + 30); // both lanes hold a statement older than the stall bound
    const rows = await Promise.all(Array.from({ length: 10 }, (_, n) => pidOf(execute, n)));
    expect(sleptOut).toBe(false); // answered while both lanes were still busy
    expect(rows.map(([row]) => row!.n)).toEqual(Array.from({ length: 10 }, (_, n) => n));
    await sleeps;
  });

  it('opens one lane where the pool allows one connection', async () => {
    const { dataSource, execute } = await open({ max: 1 });
    const pool = (dataSource.driver as unknown as { master: PoolCounts }).master;
    const rows = await Promise.all(Array.from({ length: 100 }, (_, n) => pidOf(execute, n)));
    expect(new Set(rows.map(([row]) => row!.pid)).size).toBe(1);
    expect(pool.totalCount).toBeLessThanOrEqual(1);
  });

  it("runs the pool's onConnect hook on a lane before its statements", async () => {
    const { execute } = await open({
      onConnect: (client: { query(sql: string): Promise<unknown> }) =>
        client.query('SET statement_timeout = 12345'),
    });
    const rows = await Promise.all(
      Array.from({ length: 5 }, () =>
        execute<{ statement_timeout: string }>('lanes_show', 'SHOW statement_timeout', []),
      ),
    );
    expect(rows.map(([row]) => row!.statement_timeout)).toEqual(Array(5).fill('12345ms'));
  });

  it('is not used where the pool sets query_timeout (it would count the wait in the pipeline)', async () => {
    const { dataSource, execute } = await open({ query_timeout: 5_000 });
    expect(
      PgPipelineLanes.of((dataSource.driver as unknown as { master: never }).master),
    ).toBeUndefined();
    const rows = await Promise.all(Array.from({ length: 100 }, (_, n) => pidOf(execute, n)));
    expect(new Set(rows.map(([row]) => row!.pid)).size).toBeGreaterThan(2);
  });

  it("lets the DataSource's destroy finish the lanes' statements and end them before it resolves", async () => {
    const { name, dataSource, execute } = await open();
    await Promise.all(Array.from({ length: 50 }, (_, n) => pidOf(execute, n)));
    let answered = false;
    const slow = execute('lanes_sleep_short', 'SELECT pg_sleep(0.2)', []).then(
      () => (answered = true),
    );
    await dataSource.destroy();
    expect(answered).toBe(true);
    await slow;
    expect(await gone(name)).toEqual([]);
  });

  it('leaves a pool whose pg has no pipeline mode (before 8.23) to the pool', () => {
    class OldClient {}
    const pool = {
      Client: OldClient,
      options: {},
      query: () => Promise.resolve({ rows: [] }),
      end: () => undefined,
    };
    expect(PgPipelineLanes.of(pool as never)).toBeUndefined();
  });
});
