import { describe, expect, it } from '@jest/globals';
import {
  INNODB_DEADLOCK,
  POSTGRES_DEADLOCK,
  type TransactionRetry,
  retryTransaction,
} from './retry-on-deadlock.js';

/** A transaction failing with `errors` in turn, then answering how many tries it took. */
function failingWith(errors: unknown[]) {
  let tries = 0;
  return {
    transaction: async () => {
      tries += 1;
      if (tries <= errors.length) throw errors[tries - 1];
      return tries;
    },
    tries: () => tries,
  };
}

const quick: TransactionRetry = { ...POSTGRES_DEADLOCK, delayMs: () => 0 };

describe('retryTransaction', () => {
  it('runs a transaction again after each failure it recognises, until it succeeds', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const serialization = Object.assign(new Error('could not serialize'), { code: '40001' });
    const run = failingWith([deadlock, serialization]);
    await expect(retryTransaction(quick, run.transaction)).resolves.toBe(3);
  });

  it('rethrows any other failure at once', async () => {
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    const run = failingWith([unique]);
    await expect(retryTransaction(quick, run.transaction)).rejects.toBe(unique);
    expect(run.tries()).toBe(1);
  });

  it('gives up after its attempts with the last failure', async () => {
    const deadlocks = Array.from({ length: 9 }, (_, i) =>
      Object.assign(new Error(`deadlock ${i + 1}`), { code: '40P01' }),
    );
    const run = failingWith(deadlocks);
    await expect(retryTransaction(quick, run.transaction)).rejects.toBe(deadlocks[4]);
    expect(run.tries()).toBe(POSTGRES_DEADLOCK.attempts);
  });

  it("recognises InnoDB's deadlock as TypeORM and mysql2 raise it, and only it", () => {
    expect(INNODB_DEADLOCK.retries({ driverError: { errno: 1213 } })).toBe(true);
    expect(INNODB_DEADLOCK.retries({ errno: 1213 })).toBe(true);
    expect(INNODB_DEADLOCK.retries({ driverError: { errno: 1205 } })).toBe(false);
    expect(INNODB_DEADLOCK.retries({ errno: 1205 })).toBe(false);
    expect(INNODB_DEADLOCK.retries(undefined)).toBe(false);
    expect(POSTGRES_DEADLOCK.retries(undefined)).toBe(false);
    expect(INNODB_DEADLOCK.retries({ code: '40P01' })).toBe(false);
    expect(POSTGRES_DEADLOCK.retries({ driverError: { errno: 1213 } })).toBe(false);
  });
});
