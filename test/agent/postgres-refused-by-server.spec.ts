import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';
import { refusedByServer } from '../../src/modules/agent/runs/postgres-replace-batch.js';

const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
await client.connect();
afterAll(() => client.end());

/** The error a promise rejects with. */
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('refusedByServer', () => {
  it("is true for the server's answers, FATAL included: the statement did not commit", async () => {
    expect(refusedByServer(await errorOf(client.query('SELECT 1/0')))).toBe(true);
    expect(refusedByServer(await errorOf(client.query('SELECT $1::text', ['\u0000'])))).toBe(true);
    const doomed = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    doomed.on('error', () => undefined);
    await doomed.connect();
    const pid = (await doomed.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!
      .pid;
    const sleeping = errorOf(doomed.query('SELECT pg_sleep(5)'));
    // Bounded wait for the sleep to start, then end its backend: 57P01, FATAL.
    for (let i = 0; i < 100; i += 1) {
      const { rows } = await client.query(
        "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE 'SELECT pg_sleep%'",
        [pid],
      );
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query('SELECT pg_terminate_backend($1)', [pid]);
    const fatal = (await sleeping) as { code?: string; severity?: string };
    expect([fatal.code, fatal.severity]).toEqual(['57P01', 'FATAL']);
    expect(refusedByServer(fatal)).toBe(true);
    await doomed.end().catch(() => undefined);
  });

  it("is false for the client's own errors: the statement may have committed", () => {
    expect(refusedByServer(new Error('Connection terminated unexpectedly'))).toBe(false);
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104 });
    expect(refusedByServer(reset)).toBe(false);
    const pipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' });
    expect(refusedByServer(pipe)).toBe(false);
    expect(refusedByServer(undefined)).toBe(false);
    expect(refusedByServer('57P01')).toBe(false);
  });
});
