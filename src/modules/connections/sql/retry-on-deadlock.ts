import { setTimeout as sleep } from 'node:timers/promises';

/** Deadlocks a transaction may meet before it is given up (each retry runs it whole again). */
const DEADLOCK_ATTEMPTS = 10;

/** InnoDB's "Deadlock found when trying to get lock". */
const ER_LOCK_DEADLOCK = 1213;

/**
 * Runs a transaction again when InnoDB picked it as a deadlock victim: the victim's transaction is
 * rolled back whole, so running it again is safe when it decides from what it reads. Backs off
 * with jitter (writers that met in one gap of an index meet again if they retry at once). It knows
 * InnoDB's error as TypeORM raises it (`driverError.errno`), for transactions run through
 * `DataSource.transaction`; PostgreSQL's deadlock (40P01) is not recognised here.
 */
export async function retryOnDeadlock<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      const errno = (error as { driverError?: { errno?: number } }).driverError?.errno;
      if (errno !== ER_LOCK_DEADLOCK || attempt >= DEADLOCK_ATTEMPTS) throw error;
      await sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
    }
  }
}
