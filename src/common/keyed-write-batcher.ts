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
}

/** A batch holds at most this many rows; more wait for the next one. */
export const MAX_WRITE_BATCH = 100;

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
 * later rows wait; when it settles, the waiting ones go as one statement of distinct keys, in
 * arrival order, sorted by key in the statement (so batches of several processes lock rows in one
 * order). A key written again while its row waits gets its later row in a later batch, so each
 * key's writes apply in the order they came. Alone, a row is written at once: nothing waits on a
 * timer. A failed batch is written again row by row, or fails each of its callers, as
 * {@link KeyedWrites.rewriteAlone} says.
 */
export class KeyedWriteBatcher<Row, Result> {
  private readonly waiting: Array<Waiting<Row, Result>> = [];
  private writing = false;

  constructor(private readonly writes: KeyedWrites<Row, Result>) {}

  /** Writes `row`, alone or in the next batch; settles with its result once it is stored. */
  submit(row: Row): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const key = this.writes.key(row);
      this.waiting.push({ row, key, resolve, reject, context: context.active() });
      if (!this.writing) this.next();
    });
  }

  /** Sends the next batch, or marks the batcher idle. */
  private next(): void {
    if (this.waiting.length === 0) {
      this.writing = false;
      return;
    }
    this.writing = true;
    void this.settle(this.takeBatch()).then(() => this.next());
  }

  /** The first waiting row of each key, in arrival order, up to the batch's size. */
  private takeBatch(): Array<Waiting<Row, Result>> {
    const batch: Array<Waiting<Row, Result>> = [];
    const taken = new Set<string>();
    const rest: Array<Waiting<Row, Result>> = [];
    for (const waiting of this.waiting) {
      if (batch.length < MAX_WRITE_BATCH && !taken.has(waiting.key)) {
        taken.add(waiting.key);
        batch.push(waiting);
      } else rest.push(waiting);
    }
    this.waiting.splice(0, this.waiting.length, ...rest);
    return batch;
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
