import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

/** How a turn is sent: now or queued, with an `Idempotency-Key` or without. */
export type TurnMode = 'sync' | 'sync-keyed' | 'async' | 'async-keyed';
const MODES: TurnMode[] = ['sync', 'sync-keyed', 'async', 'async-keyed'];

/** What became of one turn a client sent. */
export interface TurnOutcome {
  conversationId: string;
  message: string;
  mode: TurnMode;
  /** The phase of the test when the turn was first sent. */
  phase: string;
  /** The server said it took the turn (201, or 202 with a run id). */
  acknowledged: boolean;
  /** How the run ended, as the server last reported it. */
  status?: 'completed' | 'failed' | 'unsettled';
  runId?: string;
  /** From the first POST to a final status (ms). */
  settleMs?: number;
  /** POSTs sent for this turn (a keyed turn is sent again after an error). */
  posts: number;
  /** Answers that were errors: a 5xx, or no answer (the connection was cut). */
  errors: number;
}

/** How long a client waits for one turn to settle before it reports it unsettled. */
export const SETTLE_LIMIT_MS = 45_000;
/** How long a keyed turn's client polls its run before it sends the turn again. */
const KEYED_POLL_MS = 2_000;

/**
 * Clients of the fault test: each owns one conversation and sends turns one after another (the next
 * once the previous settled, so a conversation's order is its client's), cycling through the four
 * modes, through whichever entrance answers. A keyed turn is sent again with the same key after an
 * error or a failed run, as a careful client does; an unkeyed one that fails is given up.
 */
export class SettleClients {
  readonly outcomes: TurnOutcome[] = [];
  phase = 'control-before';
  private stopped = false;

  constructor(
    private readonly entrances: () => string[],
    private readonly label = randomUUID().slice(0, 8),
  ) {}

  conversationOf(client: number): string {
    return `settle-${this.label}-${client}`;
  }

  /** Runs `count` clients until `stop`; resolves once each finished its turn in hand. */
  run(count: number): Promise<void[]> {
    return Promise.all(Array.from({ length: count }, (_, c) => this.client(c)));
  }

  stop(): void {
    this.stopped = true;
  }

  private async client(c: number): Promise<void> {
    const conversationId = this.conversationOf(c);
    for (let t = 0; !this.stopped && t < 2_000; t += 1) {
      const outcome: TurnOutcome = {
        conversationId,
        message: `c${c}-t${t}`,
        mode: MODES[(c + t) % MODES.length]!,
        phase: this.phase,
        acknowledged: false,
        posts: 0,
        errors: 0,
      };
      this.outcomes.push(outcome);
      await this.send(outcome, c + t);
    }
  }

  private async send(outcome: TurnOutcome, turn: number): Promise<void> {
    const started = performance.now();
    const keyed = outcome.mode.endsWith('keyed');
    const async = outcome.mode.startsWith('async');
    const key = keyed ? randomUUID() : undefined;
    const deadline = started + SETTLE_LIMIT_MS;
    while (performance.now() < deadline) {
      const base = this.pick(turn + outcome.posts);
      outcome.posts += 1;
      const answer = await this.post(base, outcome, async, key);
      if (answer.status === 201) {
        outcome.acknowledged = true;
        outcome.status = 'completed';
        outcome.settleMs = performance.now() - started;
        return;
      }
      if (answer.status === 202 && answer.runId) {
        outcome.acknowledged = true;
        outcome.runId = answer.runId;
        // A keyed turn is asked again now and then: a run whose holder died is taken over so.
        const until = keyed ? Math.min(deadline, performance.now() + KEYED_POLL_MS) : deadline;
        const status = await this.waitForRun(answer.runId, until, turn);
        if (status === 'completed' || (status === 'failed' && !keyed)) {
          outcome.status = status;
          outcome.settleMs = performance.now() - started;
          return;
        }
        if (status === 'pending' && !keyed) break;
        // A keyed run that failed or is still pending: the same key, sent again.
        continue;
      }
      outcome.errors += 1;
      if (!keyed) return; // an error without a key: given up, never acknowledged
      await sleep(200);
    }
    if (outcome.acknowledged) outcome.status = 'unsettled';
  }

  private pick(n: number): string {
    const live = this.entrances();
    return live[n % live.length]!;
  }

  private async post(
    base: string,
    outcome: TurnOutcome,
    async: boolean,
    key: string | undefined,
  ): Promise<{ status: number; runId?: string }> {
    try {
      const response = await fetch(
        `${base}/conversations/${outcome.conversationId}/turns${async ? '?async=true' : ''}`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: JSON.stringify({ message: outcome.message }),
          signal: AbortSignal.timeout(20_000),
        },
      );
      const body = (await response.json().catch(() => ({}))) as { runId?: string };
      return { status: response.status, runId: body.runId };
    } catch {
      return { status: 0 }; // the entrance died mid-request
    }
  }

  /** Polls the run until it is completed or failed, through any live entrance. */
  private async waitForRun(
    runId: string,
    deadline: number,
    turn: number,
  ): Promise<'completed' | 'failed' | 'pending'> {
    for (let i = 0; performance.now() < deadline; i += 1) {
      try {
        const response = await fetch(`${this.pick(turn + i)}/runs/${runId}`, {
          signal: AbortSignal.timeout(5_000),
        });
        if (response.ok) {
          const { status } = (await response.json()) as { status: string };
          if (status === 'completed' || status === 'failed') return status;
        } else await response.arrayBuffer();
      } catch {
        // the entrance is down: the next poll goes to another
      }
      await sleep(50);
    }
    return 'pending';
  }
}

/** The p-th percentile (0–100) of some numbers; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
