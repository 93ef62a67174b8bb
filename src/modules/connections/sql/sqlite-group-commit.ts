import type { SqliteHandle } from './sqlite-handle.js';

/** One write waiting for its group's commit. */
interface QueuedWrite {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** What one write of a group came to, before the group commits. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** One group commit per connection, however many stores write through it. */
const groups = new WeakMap<SqliteHandle, SqliteGroupCommit>();

/**
 * Group commit on one better-sqlite3 connection. While writes come one at a time, each commits at
 * once, as its own `BEGIN IMMEDIATE … COMMIT`. Once several are asked for in one round of the event
 * loop (concurrent turns), the ones after the first wait for the end of the round (`setImmediate`)
 * and run together, in the order they were asked for, in one transaction: one sync of the
 * write-ahead log for all of them instead of one each; and while groups keep forming, every write
 * waits for its round's group. Each write of a group runs in its own savepoint, so one that throws
 * is undone alone and rejects alone; the others commit. A write's promise settles only once its
 * transaction has committed (or failed), so an awaited write is as durable as before.
 *
 * If the commit itself fails (the database locked past the busy timeout, a full disk), or SQLite
 * ends the transaction on a failing write (an I/O error), the whole group is rolled back and every
 * write in it rejects with that error. On a connection shared with the app (its own TypeORM
 * DataSource), a write asked for inside the app's open transaction runs at once, as part of it (as
 * before groups); a group waiting when the app opens one waits for its end. A write's work asking
 * for another write is refused. The order holds among the writes that go through the group.
 */
export class SqliteGroupCommit {
  private queue: QueuedWrite[] = [];
  private scheduled = false;
  /** Whether a write already committed alone in this round of the event loop. */
  private aloneThisRound = false;
  /** How many writes the last group held: more than one means writes are coming in numbers. */
  private lastGroupSize = 0;
  /** Whether this group commit's own transaction is running (its writes' work is). */
  private committing = false;

  private constructor(private readonly handle: SqliteHandle) {}

  /** The group commit of this connection (made on first use). */
  static of(handle: SqliteHandle): SqliteGroupCommit {
    let group = groups.get(handle);
    if (!group) {
      group = new SqliteGroupCommit(handle);
      groups.set(handle, group);
    }
    return group;
  }

  /** Commits the writes waiting on this connection now, if any (before it is closed). */
  static drain(handle: SqliteHandle): void {
    const group = groups.get(handle);
    if (group?.scheduled && !handle.inTransaction) group.flush();
  }

  /**
   * Runs `work` (synchronous statements on this connection, no `await`, no other `run`) at once or
   * in its round's group, and resolves with what it returned once its transaction committed.
   */
  run<R>(work: () => R): Promise<R> {
    if (this.committing)
      return Promise.reject(
        new Error('A group commit write asked for another write: run its statements directly'),
      );
    if (this.handle.inTransaction) {
      // Someone else's transaction on the shared connection: the write is part of it.
      return new Promise<R>((resolve) => resolve(this.handle.transaction(work)()));
    }
    if (!this.aloneThisRound && !this.scheduled && this.lastGroupSize <= 1) {
      // While writes come one at a time, the round's first commits at once (no wait); the ones
      // asked for after it in the same round wait for the group, and so do all while groups form.
      this.aloneThisRound = true;
      setImmediate(() => (this.aloneThisRound = false));
      return new Promise<R>((resolve) =>
        resolve(this.committed(() => this.handle.transaction(work).immediate())),
      );
    }
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    if (this.queue.length === 0) return;
    if (this.handle.inTransaction) {
      // Someone else's transaction is open on the shared connection (this one's never outlast a
      // call): the group waits for its end rather than commit or roll back with it.
      setTimeout(() => this.flush(), 1);
      return;
    }
    const group = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.lastGroupSize = group.length;
    if (group.length === 1) {
      const [write] = group;
      try {
        write!.resolve(this.committed(() => this.handle.transaction(write!.work).immediate()));
      } catch (error) {
        write!.reject(error);
      }
      return;
    }
    let outcomes: Outcome[];
    try {
      outcomes = this.committed(() =>
        this.handle.transaction(() => group.map((write) => this.inSavepoint(write))).immediate(),
      );
    } catch (error) {
      for (const write of group) write.reject(error);
      return;
    }
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) group[index]!.resolve(outcome.value);
      else group[index]!.reject(outcome.error);
    });
  }

  /** Runs this group commit's own transaction, marked as running. */
  private committed<T>(transaction: () => T): T {
    this.committing = true;
    try {
      return transaction();
    } finally {
      this.committing = false;
    }
  }

  /** One write of a group in its own savepoint; throws on if SQLite ended the whole transaction. */
  private inSavepoint(write: QueuedWrite): Outcome {
    try {
      return { ok: true, value: this.handle.transaction(write.work)() };
    } catch (error) {
      if (!this.handle.inTransaction) throw error;
      return { ok: false, error };
    }
  }
}
