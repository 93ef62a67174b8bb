import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { LongtermMemoryDisabledError } from './errors/longterm.errors.js';
import type { LongtermMemoryStore } from './interfaces/longterm-store.interface.js';
import type { LongtermBackend } from './longterm-backend.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { LongtermSession } from './session/longterm-session.js';

/** Internal token of the opened backend (or `undefined` when the tier is off). */
export const LONGTERM_BACKEND = Symbol('LongtermBackend');
/** Internal token of the module's options. */
export const LONGTERM_OPTIONS = Symbol('LongtermOptions');

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
const DEFAULT_SWEEP_BATCH = 1_000;

/**
 * The long-term tier (DESIGN §8): the store, the per-entity seq counters, run sessions, and the
 * in-process sweeper of expired rows. When the tier is off, every method throws
 * `LongtermMemoryDisabledError` (`enabled` is false).
 */
@Injectable()
export class LongtermMemoryService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(LongtermMemoryService.name);
  private sweeper?: NodeJS.Timeout;
  private sweeping?: Promise<unknown>;

  constructor(
    @Inject(LONGTERM_BACKEND) private readonly backend: LongtermBackend | undefined,
    @Inject(LONGTERM_OPTIONS) private readonly options: LongtermMemoryModuleOptions,
  ) {}

  /** Whether the tier is on (a URI was configured). */
  get enabled(): boolean {
    return this.backend !== undefined;
  }

  /** The store (throws when the tier is off). */
  get store(): LongtermMemoryStore {
    return this.require().store;
  }

  /** The next value of the entity's durable counter: a run's `seq`, taken when the run is created. */
  async nextSeq(entityId: string): Promise<number> {
    return this.require().counter.next(entityId);
  }

  /** A run's staging session: saves are staged and written by `flush()` with the run's seq and time. */
  session(entityId: string, run: { seq: number; updatedAt: number }): LongtermSession {
    return new LongtermSession(this.require().store, entityId, run.seq, run.updatedAt);
  }

  /** Removes expired rows in bounded batches until none are left; returns how many went. */
  async sweep(
    batchSize = this.options.sweep
      ? (this.options.sweep.batchSize ?? DEFAULT_SWEEP_BATCH)
      : DEFAULT_SWEEP_BATCH,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await this.require().store.sweepExpired(batchSize);
      total += removed;
      if (removed < batchSize) return total;
    }
  }

  onModuleInit(): void {
    if (!this.backend || this.options.sweep === false) return;
    const interval = this.options.sweep?.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    this.sweeper = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep()
        .catch((error: unknown) =>
          this.logger.warn(`Sweeping expired long-term rows failed: ${String(error)}`),
        )
        .finally(() => (this.sweeping = undefined));
    }, interval);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await this.sweeping;
    await this.backend?.release();
  }

  private require(): LongtermBackend {
    if (!this.backend) throw new LongtermMemoryDisabledError();
    return this.backend;
  }
}
