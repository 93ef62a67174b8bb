import { type Context, context } from '@opentelemetry/api';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';

/** What a backend's atomic append reports. */
export interface AppendOutcome {
  /** True if new messages would have been written but `expectedVersion` did not match. */
  conflict: boolean;
  /** The stored version after the append (before it, on a conflict). */
  version: number;
}

/** One caller's append: its messages and its own expected version. */
export interface AppendRequest {
  readonly messages: PreparedMessage[];
  readonly expectedVersion: number | undefined;
}

/** Appends one caller's batch atomically. */
export type AppendOne = (conversationId: string, request: AppendRequest) => Promise<AppendOutcome>;

/**
 * Appends several callers' batches to one conversation atomically, in order, each with exactly the
 * outcome it would have had alone at that point (its own expected-version check, ids stored by an
 * earlier batch of the group counting as stored): one outcome per request.
 */
export type AppendGroup = (
  conversationId: string,
  requests: AppendRequest[],
) => Promise<AppendOutcome[]>;

/** A group carries at most this many messages (a larger batch still goes, alone). */
export const MAX_GROUP_MESSAGES = 1_000;

interface Waiting extends AppendRequest {
  resolve(outcome: AppendOutcome): void;
  reject(error: unknown): void;
  /** The caller's active context (its `add` span): the group's I/O runs in its first caller's. */
  context: Context;
}

/**
 * Group commit of concurrent appends to one conversation inside one process. While an append to a
 * conversation is in flight, later appends to it wait; when it settles, the waiting ones go as one
 * group (one round trip, one transaction or script), in arrival order. Alone, an append runs at
 * once, as before: nothing waits on a timer. If a group fails, its requests are retried one by one,
 * so a failure reaches only the caller whose batch causes it (ids are idempotent: a batch the failed
 * group did store is a no-op the second time). Other processes writing the same conversation are
 * serialized by the backend as before; this only saves work inside one. A group's I/O runs in the
 * active context (tracing span) of its first caller, a retried request's in its own caller's.
 */
export class AppendCoalescer {
  /** Conversations with an append in flight → the requests waiting for it. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly one: AppendOne,
    private readonly group: AppendGroup,
  ) {}

  /** Appends `request` to the conversation, alone or in the next group; settles with its outcome. */
  append(conversationId: string, request: AppendRequest): Promise<AppendOutcome> {
    const queue = this.waiting.get(conversationId);
    if (queue !== undefined)
      return new Promise((resolve, reject) =>
        queue.push({ ...request, resolve, reject, context: context.active() }),
      );
    this.waiting.set(conversationId, []);
    let alone: Promise<AppendOutcome>;
    try {
      alone = this.one(conversationId, request);
    } catch (error) {
      alone = Promise.reject(error); // a throw must not leave the conversation marked busy
    }
    void alone.then(
      () => this.next(conversationId),
      () => this.next(conversationId),
    );
    return alone;
  }

  /** Sends what waits for the conversation as the next group, or marks it idle. */
  private next(conversationId: string): void {
    const queue = this.waiting.get(conversationId)!;
    if (queue.length === 0) {
      this.waiting.delete(conversationId);
      return;
    }
    let take = 1;
    let messages = queue[0]!.messages.length;
    while (take < queue.length && messages + queue[take]!.messages.length <= MAX_GROUP_MESSAGES)
      messages += queue[take++]!.messages.length;
    const batch = queue.splice(0, take);
    void this.settle(conversationId, batch).then(() => this.next(conversationId));
  }

  /** Runs one group (a single request goes alone) and settles each of its callers. */
  private async settle(conversationId: string, batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      let outcomes: AppendOutcome[] | undefined;
      try {
        outcomes = await context.with(batch[0]!.context, () =>
          this.group(conversationId, batch.map(request)),
        );
      } catch {
        outcomes = undefined; // retried one by one below, so each caller gets its own outcome
      }
      if (outcomes !== undefined && outcomes.length === batch.length) {
        batch.forEach((waiting, i) => waiting.resolve(outcomes[i]!));
        return;
      }
    }
    for (const waiting of batch) {
      try {
        waiting.resolve(
          await context.with(waiting.context, () => this.one(conversationId, request(waiting))),
        );
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}

function request({ messages, expectedVersion }: Waiting): AppendRequest {
  return { messages, expectedVersion };
}
