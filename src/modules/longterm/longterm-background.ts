import type {
  ScheduledSweep,
  SweepScheduler,
} from '../sweeper/interfaces/sweep-scheduler.interface.js';
import { scheduleSweep } from '../sweeper/schedule-sweep.js';
import type { LongtermMemoryModuleOptions } from './longterm.options.js';
import type { EmbeddingBackfill } from './recall/embedding/embedding-backfill.js';

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
/** Rows the expiry sweep removes per batch by default. */
export const DEFAULT_SWEEP_BATCH = 1_000;
const DEFAULT_BACKFILL_INTERVAL_MS = 10 * 60_000;
/** Records one background-embedding pass embeds by default. */
export const DEFAULT_BACKFILL_BATCH = 100;

/**
 * The long-term tier's background work: the `longterm-expiry` sweep (unless `sweep` is `false`)
 * and, with an embedder, the `longterm-embeddings` backfill with a first pass at start — on the
 * app's `SWEEP_SCHEDULER` if there is one, else on in-process timers.
 */
export class LongtermBackgroundTasks {
  private sweeping?: ScheduledSweep;
  private embedding?: ScheduledSweep;
  private firstPass?: Promise<number>;

  constructor(
    private readonly options: LongtermMemoryModuleOptions,
    private readonly sweep: (batch: number) => Promise<number>,
    private readonly backfill: EmbeddingBackfill | undefined,
    private readonly scheduler: SweepScheduler | undefined,
  ) {}

  /** Schedules the sweep and the backfill, and starts the backfill's first pass in the background. */
  async start(): Promise<void> {
    const { backfill, options } = this;
    this.sweeping = await scheduleSweep(this.scheduler, options.sweep, {
      name: 'longterm-expiry',
      defaultEveryMs: DEFAULT_SWEEP_INTERVAL_MS,
      defaultBatch: DEFAULT_SWEEP_BATCH,
      run: (batch) => this.sweep(batch),
    });
    if (!backfill) return;
    this.embedding = await scheduleSweep(this.scheduler, options.recall?.backfill, {
      name: 'longterm-embeddings',
      defaultEveryMs: DEFAULT_BACKFILL_INTERVAL_MS,
      defaultBatch: DEFAULT_BACKFILL_BATCH,
      run: (batch) => backfill.pass(batch),
    });
    // A first pass at start: a new model's vectors start coming at once.
    if (options.recall?.backfill !== false)
      this.firstPass = backfill.pass(options.recall?.backfill?.batchSize ?? DEFAULT_BACKFILL_BATCH);
  }

  /** Stops both and waits for a pass in flight (idempotent). */
  async stop(): Promise<void> {
    this.backfill?.stop();
    await this.sweeping?.stop();
    await this.embedding?.stop();
    await this.firstPass;
  }
}
