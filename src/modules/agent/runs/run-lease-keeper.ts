import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { RunRecords } from './run-records.js';

/**
 * Renews the leases of the runs this process holds (running them, or handing them to a queue), a
 * third of the lease at a time, all in one pass. A run whose lease could not be renewed before it ran
 * out (a store outage, a blocked event loop) may be taken over by another caller; the run cache makes
 * the two executions converge on one stored turn.
 */
export class RunLeaseKeeper {
  /** This process's token as the owner of the runs it holds. */
  readonly owner = randomUUID();
  private readonly logger = new Logger('AgentRuns');
  private readonly held = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private renewing = false;

  constructor(private readonly records: RunRecords) {}

  /** Holds `runId` until the returned function is called (holds nest: each call is counted). */
  hold(runId: string): () => void {
    this.held.set(runId, (this.held.get(runId) ?? 0) + 1);
    this.timer ??= setInterval(() => void this.renewAll(), this.records.lease / 3).unref();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.held.get(runId) ?? 1) - 1;
      if (count > 0) this.held.set(runId, count);
      else this.held.delete(runId);
      if (this.held.size === 0) this.stop();
    };
  }

  /** How many runs this process holds now. */
  get size(): number {
    return this.held.size;
  }

  /** Stops renewing (at shutdown); held runs' leases then run out. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renewAll(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      await Promise.all(
        [...this.held.keys()].map(async (runId) => {
          try {
            if ((await this.records.renew(runId, this.owner)) === 'gone') this.held.delete(runId);
          } catch (error) {
            this.logger.warn(`Lease of run ${runId} not renewed: ${(error as Error).message}`);
          }
        }),
      );
    } finally {
      this.renewing = false;
    }
  }
}
