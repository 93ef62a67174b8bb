import { describe, expect, it } from '@jest/globals';
import { PgPipelineLanes, type PgPoolLike } from './pg-pipeline-lanes.js';

/**
 * A `pg` client in pipeline mode that answers each statement with its own number; the first
 * statement on the first connection fails with `firstError`, and that connection's end settles
 * with `firstEnds`.
 */
function clientsFailingFirstWith(firstError: Error, firstEnds = Promise.resolve()) {
  const opened: FakeClient[] = [];
  class FakeClient {
    pipeline = false;
    ended = false;
    private answered = 0;
    connect(): Promise<void> {
      opened.push(this);
      return Promise.resolve();
    }
    query(): Promise<{ rows: unknown[] }> {
      this.answered += 1;
      if (this === opened[0] && this.answered === 1) return Promise.reject(firstError);
      return Promise.resolve({ rows: [{ connection: opened.indexOf(this) }] });
    }
    end(): Promise<void> {
      this.ended = true;
      return this === opened[0] ? firstEnds : Promise.resolve();
    }
    on(): this {
      return this;
    }
  }
  const pool: PgPoolLike = {
    Client: FakeClient,
    options: {},
    query: () => Promise.reject(new Error('the pool is not used here')),
    end: () => Promise.resolve(),
  };
  return { lanes: PgPipelineLanes.of(pool)!, opened, pool };
}

/** An error as `pg` gives a server's ErrorResponse: its (localized) severity and its SQLSTATE. */
const serverError = (message: string, severity: string, code: string) =>
  Object.assign(new Error(message), { severity, code });

/** Runs one statement, and the next the moment the first fails: which connection answers it. */
async function nextAfterFailure(firstError: Error) {
  const { lanes, opened } = clientsFailingFirstWith(firstError);
  const statement = { text: 'SELECT 1', values: [] };
  const next = await lanes.query(statement).then(
    () => undefined,
    () => lanes.query(statement),
  );
  return { connection: (next!.rows[0] as { connection: number }).connection, opened };
}

describe('PgPipelineLanes and errors that end the session', () => {
  it('drops a lane whose statement was ended by an operator, whatever language its severity is in', async () => {
    // A server with lc_messages = 'de_DE' sends pg_terminate_backend's FATAL as SCHWERWIEGEND.
    const terminated = serverError('Verbindung wird abgebrochen', 'SCHWERWIEGEND', '57P01');
    const { connection, opened } = await nextAfterFailure(terminated);
    expect(connection).toBe(1);
    expect(opened[0]!.ended).toBe(true);
  });

  it('drops a lane on any FATAL error', async () => {
    const fatal = serverError('terminating connection', 'FATAL', 'XX000');
    expect((await nextAfterFailure(fatal)).connection).toBe(1);
  });

  it('keeps a lane whose statement failed alone (the session goes on)', async () => {
    const divisionByZero = serverError('division by zero', 'ERROR', '22012');
    const { connection, opened } = await nextAfterFailure(divisionByZero);
    expect(connection).toBe(0);
    expect(opened).toHaveLength(1);
  });

  it("makes the pool's end wait for a lane dropped earlier until its connection has ended", async () => {
    let finishEnding!: () => void;
    const { lanes, pool } = clientsFailingFirstWith(
      serverError('terminating connection', 'FATAL', '57P01'),
      new Promise<void>((resolve) => (finishEnding = resolve)),
    );
    await lanes.query({ text: 'SELECT 1', values: [] }).catch(() => undefined);
    let poolEnded = false;
    const ending = (pool.end() as Promise<void>).then(() => (poolEnded = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(poolEnded).toBe(false);
    finishEnding();
    await ending;
    expect(poolEnded).toBe(true);
  });
});
