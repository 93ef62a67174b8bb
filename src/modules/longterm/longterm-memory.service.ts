import { LONGTERM_BACKEND, LONGTERM_OPTIONS } from './longterm.constants.js';
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import type {
  ScheduledSweep,
  SweepScheduler,
} from '../sweeper/interfaces/sweep-scheduler.interface.js';
import { scheduleSweep } from '../sweeper/schedule-sweep.js';
import { sweepInBatches } from '../sweeper/sweep-in-batches.js';
import { SWEEP_SCHEDULER } from '../sweeper/sweeper.constants.js';
import { LongtermMemoryDisabledError } from './errors/longterm.errors.js';
import type { LongtermMemoryStore } from './interfaces/longterm-store.interface.js';
import type { LongtermBackend, LongtermTier } from './longterm-backend.factory.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import { LongtermSession } from './session/longterm-session.js';
import type { RecallHit, RecallOptions } from './recall/recall.interface.js';
import { fuseRankings } from './recall/rank-fusion.js';
import { recallOptions } from './recall/recall-options.js';

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
const DEFAULT_SWEEP_BATCH = 1_000;

/**
 * The long-term tier: the store, the per-entity seq counters, run sessions, and the
 * sweep of expired rows (task `longterm-expiry`, on the app's `SWEEP_SCHEDULER` if `SweeperModule`
 * provides one, else on an in-process timer). When the tier is off, every method throws
 * `LongtermMemoryDisabledError` (`enabled` is false).
 */
@Injectable()
export class LongtermMemoryService
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private sweeping?: ScheduledSweep;

  constructor(
    @Inject(LONGTERM_BACKEND) private readonly backend: LongtermBackend | undefined,
    @Inject(LONGTERM_OPTIONS) private readonly options: LongtermMemoryModuleOptions,
    @Optional() @Inject(SWEEP_SCHEDULER) private readonly scheduler?: SweepScheduler,
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
    return new LongtermSession(
      this.require().store,
      entityId,
      run.seq,
      run.updatedAt,
      this.options.maxValueBytes,
    );
  }

  /**
   * The entity's records that best match `query`, best first: the backend's full-text search
   * (case- and accent-insensitive words, BM25 or its equivalent), fused by reciprocal rank fusion
   * with any other list recall runs, each hit saying which list found it and where.
   */
  async recall(entityId: string, query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    const { store } = this.require();
    const { k, filter } = recallOptions(options);
    const lexical = await store.searchText(entityId, query, { ...filter, limit: k });
    return fuseRankings(
      [
        {
          name: 'lexical',
          items: lexical.map((hit) => ({ id: hit.record.key, item: hit.record, score: hit.score })),
        },
      ],
      k,
    ).map((fused) => ({
      source: 'record' as const,
      record: fused.item,
      score: fused.score,
      ...(fused.ranks.lexical ? { lexical: fused.ranks.lexical } : {}),
    }));
  }

  /** Removes expired rows in bounded batches until none are left; returns how many went. */
  async sweep(
    batchSize = this.options.sweep
      ? (this.options.sweep.batchSize ?? DEFAULT_SWEEP_BATCH)
      : DEFAULT_SWEEP_BATCH,
  ): Promise<number> {
    const { store } = this.require();
    return sweepInBatches((limit) => store.sweepExpired(limit), batchSize);
  }

  /**
   * Schedules the `longterm-expiry` sweep (unless the tier is off or `sweep` is `false`), on the
   * app's `SWEEP_SCHEDULER` if there is one, else on an in-process timer.
   */
  async onModuleInit(): Promise<void> {
    if (!this.backend) return;
    this.sweeping = await scheduleSweep(this.scheduler, this.options.sweep, {
      name: 'longterm-expiry',
      defaultEveryMs: DEFAULT_SWEEP_INTERVAL_MS,
      defaultBatch: DEFAULT_SWEEP_BATCH,
      run: (batch) => this.sweep(batch),
    });
  }

  /** Stops the sweep before any connection closes (the app's own DataSource included). */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeping?.stop();
  }

  /** Stops the sweep if it still runs, then releases the tier's connections. */
  async onApplicationShutdown(): Promise<void> {
    await this.sweeping?.stop();
    await this.backend?.release();
  }

  private require(): LongtermTier {
    if (!this.backend) throw new LongtermMemoryDisabledError();
    return this.backend.value;
  }
}
