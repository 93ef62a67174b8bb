import { type Context, context } from '@opentelemetry/api';

/** One touch as the directory's table stores it (`''` for no title or preview). */
export interface TouchRow {
  readonly conversationId: string;
  readonly namespace: string;
  readonly at: number;
  /** `=title` for the default title, else `''`. */
  readonly title: string;
  readonly preview: string;
}

/** Writes touches of distinct conversations in one statement (one commit). */
export type WriteTouches = (rows: readonly TouchRow[]) => Promise<void>;

/** A batch holds at most this many touches; more wait for the next one. */
export const MAX_TOUCH_BATCH = 100;

interface Waiting {
  readonly row: TouchRow;
  resolve(): void;
  reject(error: unknown): void;
  /** The caller's active context (tracing span): a batch's write runs in its first caller's. */
  readonly context: Context;
}

/**
 * Group commit of one process's conversation touches on a server database. While a write is in
 * flight, later touches wait; when it settles, the waiting ones go as one statement of distinct
 * conversations, in arrival order, sorted by id in the statement (concurrent batches of several
 * processes lock rows in one order). A conversation touched again while its touch waits gets its
 * later touch in a later batch, so each conversation's touches apply in the order they came.
 * Alone, a touch is written at once: nothing waits on a timer. If a batch fails, its touches are
 * written one by one, so a failure reaches only the caller whose touch causes it (a touch is an
 * upsert that keeps the newest time: written twice, it leaves the same row).
 */
export class TouchBatcher {
  private readonly waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly write: WriteTouches) {}

  /** Writes `row`, alone or in the next batch; settles once it is stored. */
  touch(row: TouchRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ row, resolve, reject, context: context.active() });
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
    const batch = this.takeBatch();
    void this.settle(batch).then(() => this.next());
  }

  /** The first waiting touch of each conversation, in arrival order, up to the batch's size. */
  private takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    const taken = new Set<string>();
    const rest: Waiting[] = [];
    for (const waiting of this.waiting) {
      const id = waiting.row.conversationId;
      if (batch.length < MAX_TOUCH_BATCH && !taken.has(id)) {
        taken.add(id);
        batch.push(waiting);
      } else rest.push(waiting);
    }
    this.waiting.splice(0, this.waiting.length, ...rest);
    return batch;
  }

  /** Writes one batch (one touch alone) and settles each of its callers. */
  private async settle(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      const rows = batch.map((waiting) => waiting.row).sort(byConversationId);
      try {
        await context.with(batch[0]!.context, () => this.write(rows));
        for (const waiting of batch) waiting.resolve();
        return;
      } catch {
        // written one by one below, so each caller gets its own outcome
      }
    }
    for (const waiting of batch) {
      try {
        await context.with(waiting.context, () => this.write([waiting.row]));
        waiting.resolve();
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}

function byConversationId(a: TouchRow, b: TouchRow): number {
  return a.conversationId < b.conversationId ? -1 : a.conversationId > b.conversationId ? 1 : 0;
}
