import { setTimeout as sleep } from 'node:timers/promises';

/** Which failures a transaction may run again after, how often, and how long to wait first. */
export interface TransactionRetry {
  /** Whether `error` rolled the whole transaction back and running it again may succeed. */
  retries(error: unknown): boolean;
  /** Tries in all, the first included. */
  attempts: number;
  /** The wait (ms) before try `attempt + 1`, after try `attempt` failed. */
  delayMs(attempt: number): number;
}

/**
 * InnoDB's "Deadlock found when trying to get lock" (errno 1213) as TypeORM raises it
 * (`driverError.errno`, for transactions run through `DataSource.transaction`) or as mysql2 does
 * (`errno`, for statements sent to its pool): up to 10 tries, backing off with jitter (writers that
 * met in one gap of an index meet again if they retry at once).
 */
export const INNODB_DEADLOCK: TransactionRetry = {
  retries: (error) => {
    const failure = (error ?? {}) as { errno?: unknown; driverError?: { errno?: unknown } };
    return (failure.driverError?.errno ?? failure.errno) === 1213;
  },
  attempts: 10,
  delayMs: (attempt) => Math.random() * Math.min(200, 5 * 2 ** attempt),
};

/**
 * PostgreSQL's deadlock (40P01) and serialization failure (40001), as `pg` raises them (`code`):
 * up to 5 tries, a short jittered wait between them.
 */
export const POSTGRES_DEADLOCK: TransactionRetry = {
  retries: (error) => {
    const code = ((error ?? {}) as { code?: unknown }).code;
    return code === '40P01' || code === '40001';
  },
  attempts: 5,
  delayMs: (attempt) => Math.random() * 10 * attempt,
};

/**
 * Runs `transaction`, and runs it again while it fails with an error `retry` recognises, up to its
 * attempts. The database rolled the failed transaction back whole, so running it again is safe when
 * it decides from what it reads.
 */
export async function retryTransaction<T>(
  retry: TransactionRetry,
  transaction: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (!retry.retries(error) || attempt >= retry.attempts) throw error;
      await sleep(retry.delayMs(attempt));
    }
  }
}

/** {@link retryTransaction} with {@link INNODB_DEADLOCK}: an InnoDB transaction run again when it was a deadlock's victim. */
export function retryOnDeadlock<T>(transaction: () => Promise<T>): Promise<T> {
  return retryTransaction(INNODB_DEADLOCK, transaction);
}
