import { WORKING_MEMORY_BACKEND, WORKING_MEMORY_OPTIONS } from './working-memory.constants.js';
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
import { SWEEP_SCHEDULER } from '../sweeper/sweeper.constants.js';
import type { Lease } from '../../common/lease.js';
import {
  type BackendSnapshot,
  entryBytes,
  type WorkingMemoryBackend,
} from './backends/working-memory-backend.interface.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import { DropOldestCompactor } from './compactors/drop-oldest.compactor.js';
import type {
  WorkingMemoryHandle,
  WorkingMemoryHandleOptions,
  WorkingMemorySnapshot,
  WorkingMemoryValue,
} from './interfaces/working-memory.interface.js';
import { DefaultWorkingMemoryHandle, type HandleSettings } from './working-memory.handle.js';
import type { WorkingMemoryModuleOptions } from './working-memory.options.js';
import {
  DEFAULT_WORKING_MEMORY_CAP_BYTES,
  DEFAULT_WORKING_MEMORY_MAX_VALUE_BYTES,
} from './working-memory-options.validation.js';
import { WorkingMemoryCapacity } from './working-memory-capacity.js';

/** Default period of the idle sweep: every minute. */
const DEFAULT_IDLE_SWEEP_INTERVAL_MS = 60_000;
/** Default number of idle memories one sweep batch reclaims. */
const DEFAULT_IDLE_SWEEP_BATCH = 100;
/** Most batches of one sweep pass. */
const MAX_SWEEP_ROUNDS = 100;
/** Default idle time before a full process may reclaim a memory: 60 s. */
const DEFAULT_RECLAIM_AFTER_IDLE_MS = 60_000;

/**
 * Per-conversation scratchpads: `for(conversationId)` gives a handle; a sweep (task
 * `working-memory-idle`, on the app's `SWEEP_SCHEDULER` if `SweeperModule` provides one, else on an
 * in-process timer) reclaims memories idle longer than the TTL, after the optional on-expire hook —
 * and only if nothing used the memory while the hook ran.
 */
@Injectable()
export class WorkingMemoryService
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly settings: HandleSettings;
  private readonly capacity: WorkingMemoryCapacity;
  private sweeping?: ScheduledSweep;

  constructor(
    @Inject(WORKING_MEMORY_BACKEND)
    private readonly opened: Lease<WorkingMemoryBackend>,
    @Inject(WORKING_MEMORY_OPTIONS) private readonly options: WorkingMemoryModuleOptions,
    @Optional() @Inject(SWEEP_SCHEDULER) private readonly scheduler?: SweepScheduler,
  ) {
    const capBytes = options.capBytes ?? DEFAULT_WORKING_MEMORY_CAP_BYTES;
    const now = options.now ?? Date.now;
    this.capacity = new WorkingMemoryCapacity({
      backend: opened.value,
      maxValueBytes: options.maxValueBytes ?? DEFAULT_WORKING_MEMORY_MAX_VALUE_BYTES,
      ...(options.quota ? { quota: options.quota } : {}),
      reclaimAfterIdleMs: options.reclaimAfterIdleMs ?? DEFAULT_RECLAIM_AFTER_IDLE_MS,
      ...(options.onExpire ? { onExpire: options.onExpire } : {}),
      now,
      parse: parsedSnapshot,
    });
    this.settings = {
      backend: opened.value,
      capacity: this.capacity,
      limits: { capBytes, softCapBytes: Math.floor(capBytes * (options.softCapRatio ?? 0.75)) },
      compactor:
        options.compactor === false ? undefined : (options.compactor ?? new DropOldestCompactor()),
      now,
    };
  }

  /**
   * The scratchpad of one conversation. `options.summaries` tells the summarizing compactor where
   * to keep its summaries (the agent passes its run cache, so a replay folds identically).
   */
  for(conversationId: string, options: WorkingMemoryHandleOptions = {}): WorkingMemoryHandle {
    return new DefaultWorkingMemoryHandle(conversationId, this.settings, options.summaries);
  }

  /**
   * The whole memory of a conversation, entries from least to most recently used, without counting
   * as a use (an inspector's read does not reorder the LRU or keep the memory alive); `undefined`
   * when it has none.
   */
  async inspect(conversationId: string): Promise<WorkingMemorySnapshot | undefined> {
    assertConversationId(conversationId);
    const snapshot = await this.settings.backend.snapshot(conversationId);
    return snapshot && parsedSnapshot(conversationId, snapshot);
  }

  /**
   * Deletes a conversation's whole working memory now, in one atomic step, whatever uses it (no
   * on-expire hook: it is cleared on purpose); resolves whether it had one.
   */
  async clear(conversationId: string): Promise<boolean> {
    assertConversationId(conversationId);
    return this.capacity.drop(conversationId);
  }

  /**
   * Reclaims memories idle past the TTL now (the sweeper's pass), `batchSize` at a time until none
   * is left (at most 100 batches; a memory whose hook fails is counted idle from now, so the next
   * batch moves past it); returns how many were deleted.
   */
  async sweep(
    batchSize = (this.options.sweep && this.options.sweep.batchSize) || DEFAULT_IDLE_SWEEP_BATCH,
  ): Promise<number> {
    const { backend, now } = this.settings;
    let deleted = 0;
    for (let round = 0; round < MAX_SWEEP_ROUNDS; round += 1) {
      const idle = await backend.idle(now() - (this.options.ttlMs ?? 60 * 60 * 1000), batchSize);
      let reclaimed = 0;
      for (const conversationId of idle)
        if (await this.capacity.expire(conversationId)) reclaimed += 1;
      deleted += reclaimed;
      if (idle.length < batchSize) break;
    }
    return deleted;
  }

  /**
   * Schedules the `working-memory-idle` sweep (unless `sweep` is `false`), on the app's
   * `SWEEP_SCHEDULER` if there is one, else on an in-process timer.
   */
  async onModuleInit(): Promise<void> {
    this.sweeping = await scheduleSweep(this.scheduler, this.options.sweep, {
      name: 'working-memory-idle',
      defaultEveryMs: DEFAULT_IDLE_SWEEP_INTERVAL_MS,
      defaultBatch: DEFAULT_IDLE_SWEEP_BATCH,
      run: (batch) => this.sweep(batch),
    });
  }

  /** Stops the sweep before any connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeping?.stop();
  }

  /** Stops the sweep if it still runs, then releases the backend's connection. */
  async onApplicationShutdown(): Promise<void> {
    await this.sweeping?.stop();
    await this.opened.release();
  }
}

function parsedSnapshot(conversationId: string, snapshot: BackendSnapshot): WorkingMemorySnapshot {
  return {
    conversationId,
    entries: snapshot.entries.map(([key, json]) => ({
      key,
      value: JSON.parse(json) as WorkingMemoryValue,
      sizeBytes: entryBytes(key, json),
    })),
    sizeBytes: snapshot.sizeBytes,
    lastUsedAt: snapshot.lastUsedAt,
  };
}
