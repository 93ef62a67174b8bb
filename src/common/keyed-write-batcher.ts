import { type Context, context } from '@opentelemetry/api';

/** What a {@link KeyedWriteBatcher} writes with. */
export interface KeyedWrites<Row, Result> {
  /** The row's key: rows of one key never share a batch, and apply in the order they came. */
  key(row: Row): string;
  /**
   * Writes rows of distinct keys, sorted by key, in one statement (one commit): one result per
   * row, in the order given. Each row must have the outcome it would have alone.
   */
  write(rows: readonly Row[]): Promise<readonly Result[]>;
  /**
   * Whether a batch that failed with `error` is written again row by row, so a failure reaches
   * only the caller whose row causes it (the default, for every error); else each caller gets the
   * batch's error. A write that is not safe to apply twice (a compare-and-set: its second try would
   * fail against its own first) says yes only for errors after which nothing of the batch is stored
   * (the server refused the statement), not for a lost connection, after which it may be.
   */
  rewriteAlone?(error: unknown): boolean;
  /** After how long a batch in flight is passed over; {@link BATCH_STALLED_AFTER_MS} by default. */
  stalledAfterMs?: number;
}

/** A batch holds at most this many rows; more wait for the next one. */
export const MAX_WRITE_BATCH = 100;
/** A batch in flight this long is passed over: the next one goes without waiting for it. */
export const BATCH_STALLED_AFTER_MS = 50;
/** At most this many batches in flight at once (more only while the earlier ones are stalled). */
export const MAX_BATCHES_IN_FLIGHT = 4;

interface Waiting<Row, Result> {
  readonly row: Row;
  readonly key: string;
  resolve(result: Result): void;
  reject(error: unknown): void;
  /** The caller's active context (tracing span): a batch's write runs in its first caller's. */
  readonly context: Context;
}

/**
 * Group commit of one process's small writes to a server database. While a write is in flight,
 * later rows wait; when it settles, the waiting ones go as one statement of distinct keys (the
 * oldest first), sorted by key in the statement. A key written again while its row waits or is in
 * flight gets its later row in a later batch, so each key's writes apply in the order they came.
 * Alone, a row is written at once: nothing waits on a timer. A batch that has been in flight for
 * {@link BATCH_STALLED_AFTER_MS} (a row waiting for a lock, a slow server) no longer holds the
 * others back: the next batch goes beside it. A failed batch is written again row by row, or fails
 * each of its callers, as {@link KeyedWrites.rewriteAlone} says.
 */
export class KeyedWriteBatcher<Row, Result> {
  /** Waiting rows by key, keys in the order their oldest row came. */
  private readonly waiting = new Map<string, Array<Waiting<Row, Result>>>();
  /** The keys of the batches in flight. */
  private readonly inFlightKeys = new Set<string>();
  /** When each batch in flight started (`performance.now()`), oldest first. */
  private readonly inFlightSince: number[] = [];
  /** Set while rows wait behind a batch that is not stalled yet: looks again once it would be. */
  private stallTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly writes: KeyedWrites<Row, Result>) {}

  /** Writes `row`, alone or in the next batch; settles with its result once it is stored. */
  submit(row: Row): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const key = this.writes.key(row);
      const waiting = { row, key, resolve, reject, context: context.active() };
      const queue = this.waiting.get(key);
      if (queue) queue.push(waiting);
      else this.waiting.set(key, [waiting]);
      this.pump();
    });
  }

  /** Starts batches while rows wait, none is in flight or the newest one has stalled, and keys allow. */
  private pump(): void {
    if (this.waiting.size === 0 && this.stallTimer !== undefined) {
      clearTimeout(this.stallTimer);
      this.stallTimer = undefined;
    }
    const stalledAfter = this.writes.stalledAfterMs ?? BATCH_STALLED_AFTER_MS;
    while (this.waiting.size > 0 && this.inFlightSince.length < MAX_BATCHES_IN_FLIGHT) {
      const newest = this.inFlightSince.at(-1);
      const waited = newest === undefined ? Infinity : performance.now() - newest;
      if (waited < stalledAfter) {
        this.lookAgainIn(stalledAfter - waited);
        return;
      }
      const batch = this.takeBatch();
      if (batch.length === 0) return; // every waiting key is in flight: its batch's end pumps
      this.start(batch);
    }
  }

  /** Pumps again after `ms`, unless a timer is already set (it never keeps the process alive). */
  private lookAgainIn(ms: number): void {
    if (this.stallTimer !== undefined) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      this.pump();
    }, Math.ceil(ms));
    this.stallTimer.unref?.();
  }

  /** The oldest waiting row of each key not in flight, oldest keys first, up to the batch's size. */
  private takeBatch(): Array<Waiting<Row, Result>> {
    const batch: Array<Waiting<Row, Result>> = [];
    for (const [key, queue] of this.waiting) {
      if (batch.length >= MAX_WRITE_BATCH) break;
      if (this.inFlightKeys.has(key)) continue;
      batch.push(queue.shift()!);
      if (queue.length === 0) this.waiting.delete(key);
    }
    return batch;
  }

  /** Writes `batch`; once it settles, lets its keys go and pumps again. */
  private start(batch: Array<Waiting<Row, Result>>): void {
    const since = performance.now();
    this.inFlightSince.push(since);
    for (const waiting of batch) this.inFlightKeys.add(waiting.key);
    void this.settle(batch)
      .catch((error: unknown) => {
        for (const waiting of batch) waiting.reject(error); // a throwing rewriteAlone, say
      })
      .finally(() => {
        this.inFlightSince.splice(this.inFlightSince.indexOf(since), 1);
        for (const waiting of batch) this.inFlightKeys.delete(waiting.key);
        this.pump();
      });
  }

  /** Writes one batch (one row alone) and settles each of its callers. */
  private async settle(batch: Array<Waiting<Row, Result>>): Promise<void> {
    if (batch.length > 1) {
      const sorted = [...batch].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      try {
        const results = await context.with(batch[0]!.context, () =>
          this.writes.write(sorted.map((waiting) => waiting.row)),
        );
        if (results.length !== sorted.length)
          throw new Error(`A batch of ${sorted.length} rows answered ${results.length} results`);
        sorted.forEach((waiting, i) => waiting.resolve(results[i]!));
        return;
      } catch (error) {
        if (this.writes.rewriteAlone && !this.writes.rewriteAlone(error)) {
          for (const waiting of batch) waiting.reject(error);
          return;
        }
        // written one by one below, so each caller gets its own outcome
      }
    }
    for (const waiting of batch) {
      try {
        const [result] = await context.with(waiting.context, () =>
          this.writes.write([waiting.row]),
        );
        waiting.resolve(result!);
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}
