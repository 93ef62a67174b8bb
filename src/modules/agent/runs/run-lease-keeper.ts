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
  /** Runs reserved by a caller that has not run or queued them yet, and how to let go of each. */
  private readonly reservations = new Map<string, () => void>();
  private timer?: NodeJS.Timeout;
  private renewing = false;

  constructor(private readonly records: RunRecords) {}

  /** Holds `runId` until the returned function is called (holds nest: each call is counted). */
  hold(runId: string): () => void {
    // Running or queuing a reserved run takes over its reservation's hold: the reservation lets go
    // first, so its release never counts against the new hold.
    this.endReservation(runId);
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

  /**
   * Reserves a run for this process (`RunRecords.reserve`: its `running` record under this process's
   * lease; `undefined` when this caller won it, else the existing record). A won run is held until it
   * is run or queued here — which takes the hold over — or for at most two leases, so its lease is
   * renewed between the reservation and the start (a stream to open, a slow store) but a caller that
   * never starts it does not keep it from being taken over for long.
   */
  async reserve(runId: string, conversationId: string) {
    const existing = await this.records.reserve(runId, conversationId, this.owner);
    if (existing) return existing;
    this.endReservation(runId);
    const release = this.hold(runId);
    const timer = setTimeout(() => this.endReservation(runId), 2 * this.records.lease).unref();
    this.reservations.set(runId, () => {
      clearTimeout(timer);
      release();
    });
    return undefined;
  }

  /** How many runs this process holds now. */
  get size(): number {
    return this.held.size;
  }

  /** Stops renewing (at shutdown); held runs' leases then run out. */
  stop(): void {
    for (const runId of [...this.reservations.keys()]) this.endReservation(runId);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private endReservation(runId: string): void {
    const release = this.reservations.get(runId);
    this.reservations.delete(runId);
    release?.();
  }

  private async renewAll(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    const started = performance.now();
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
      // Every held run is gone (settled or taken over elsewhere): nothing is left to renew.
      if (this.held.size === 0) this.stop();
      const tookMs = Math.round(performance.now() - started);
      // No pass starts while one runs: a pass this long leaves every lease closer to running out.
      if (tookMs > this.records.lease / 3)
        this.logger.warn(
          `Renewing ${this.held.size} run leases took ${tookMs} ms, more than a third of the ${this.records.lease} ms lease: a run may be taken over while it runs`,
        );
    }
  }
}
