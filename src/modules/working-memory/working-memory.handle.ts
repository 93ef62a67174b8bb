import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { containsNul, hasLoneSurrogate } from '../../common/utf8.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import type {
  WorkingMemoryBackend,
  WriteOutcome,
} from './backends/working-memory-backend.interface.js';
import { DropOldestCompactor } from './compactors/drop-oldest.compactor.js';
import { SummarizeCompactor } from './compactors/summarize.compactor.js';
import {
  WorkingMemoryContentionError,
  WorkingMemoryOverflowError,
} from './errors/working-memory.errors.js';
import type {
  SummaryCache,
  WorkingMemoryHandle,
  WorkingMemoryLimits,
} from './interfaces/working-memory.interface.js';
import type { WorkingMemoryCapacity } from './working-memory-capacity.js';

/** What every handle of a service shares. */
export interface HandleSettings {
  backend: WorkingMemoryBackend;
  /** Every write goes through it: value size, tenant quota, process capacity. */
  capacity: WorkingMemoryCapacity;
  limits: WorkingMemoryLimits;
  compactor?: DropOldestCompactor | SummarizeCompactor;
  now: () => number;
}

type BackendSnapshotOf = NonNullable<Awaited<ReturnType<WorkingMemoryBackend['snapshot']>>>;

/** Conditional-write attempts of one `append` before `WorkingMemoryContentionError`. */
const MAX_ATTEMPTS = 50;

/** {@link WorkingMemoryHandle} over a backend's atomic primitives. */
export class DefaultWorkingMemoryHandle implements WorkingMemoryHandle {
  private readonly logger = new Logger('WorkingMemory');

  constructor(
    readonly conversationId: string,
    private readonly settings: HandleSettings,
    private readonly summaries?: SummaryCache,
  ) {
    assertConversationId(conversationId);
  }

  async get<T>(key: string): Promise<T | undefined> {
    assertKey(key);
    const { json } = await this.settings.backend.read(
      this.conversationId,
      key,
      true,
      this.settings.now(),
    );
    return json === undefined ? undefined : (JSON.parse(json) as T);
  }

  async set(key: string, value: unknown): Promise<void> {
    assertKey(key);
    const json = toJson(key, value);
    this.settings.capacity.checkValue(key, json);
    await this.untilWritten(key, () => this.write(key, json));
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    const { freedBytes, emptied } = await this.settings.backend.remove(
      this.conversationId,
      key,
      this.settings.now(),
    );
    await this.settings.capacity.released(this.conversationId, freedBytes, emptied ? 1 : 0);
  }

  async append(key: string, item: unknown, maxItems = 64): Promise<void> {
    assertKey(key);
    if (!Number.isInteger(maxItems) || maxItems < 1)
      throw new InvalidArgumentError('maxItems', 'must be a positive integer');
    const itemJson = toJson(key, item);
    this.settings.capacity.checkValue(key, itemJson);
    await this.untilWritten(key, async () => {
      const { json, touch } = await this.settings.backend.read(
        this.conversationId,
        key,
        false,
        this.settings.now(),
      );
      const ring = parseRing(key, json);
      const next = `[${[...ring.map((value) => JSON.stringify(value)), itemJson].slice(-maxItems).join(',')}]`;
      return this.write(key, next, touch);
    });
  }

  async ring<T>(key: string): Promise<T[]> {
    assertKey(key);
    const { json } = await this.settings.backend.read(
      this.conversationId,
      key,
      false,
      this.settings.now(),
    );
    return parseRing(key, json) as T[];
  }

  keys(): Promise<string[]> {
    return this.settings.backend.keys(this.conversationId);
  }

  sizeBytes(): Promise<number> {
    return this.settings.backend.size(this.conversationId);
  }

  /** Repeats a conditional write until no other writer got in between (jittered waits). */
  private async untilWritten(key: string, attempt: () => Promise<WriteOutcome>): Promise<void> {
    for (let n = 0; n < MAX_ATTEMPTS; n += 1) {
      if ((await attempt()).status !== 'conflict') return;
      await sleep(Math.random() * Math.min(20, 2 ** n));
    }
    throw new WorkingMemoryContentionError(key);
  }

  /**
   * Writes with the caps. Drop-oldest compaction happens inside the backend's atomic write. The
   * summarizing compactor folds rings and the folded rings are written together with the entry in
   * one atomic step, so a write that still does not fit throws `WorkingMemoryOverflowError` and
   * changes nothing — neither the entry nor the rings.
   */
  private async write(key: string, json: string, expectedTouch?: number): Promise<WriteOutcome> {
    const { capacity, limits, compactor, now } = this.settings;
    const eviction =
      compactor instanceof DropOldestCompactor ? compactor.policyFor(limits) : undefined;
    let outcome = await capacity.write(this.conversationId, {
      key,
      json,
      limits,
      eviction,
      expectedTouch,
      now: now(),
    });
    if (compactor instanceof SummarizeCompactor) {
      if (outcome.status === 'overflow')
        outcome = await this.writeFolded(compactor, key, json, expectedTouch, outcome);
      else if (outcome.status === 'ok' && outcome.crossedSoftCap) await this.foldPass(compactor);
    }
    if (outcome.status === 'overflow')
      throw new WorkingMemoryOverflowError(key, outcome.attemptedBytes, limits.capBytes);
    if (outcome.status === 'ok' && outcome.crossedSoftCap) {
      // With evictions the size is the one after them, which may be back under the soft cap.
      this.logger.warn(
        outcome.evicted.length
          ? `Working memory of ${this.conversationId} crossed its soft cap of ${limits.softCapBytes} bytes; evicted ${outcome.evicted.join(', ')}, now at ${outcome.sizeBytes} bytes`
          : `Working memory of ${this.conversationId} is at ${outcome.sizeBytes} bytes, over its soft cap of ${limits.softCapBytes}`,
      );
    }
    return outcome;
  }

  /** The entry and the folded rings in one atomic write, on the memory as it was when folded. */
  private async writeFolded(
    compactor: SummarizeCompactor,
    key: string,
    json: string,
    expectedTouch: number | undefined,
    overflow: WriteOutcome,
  ): Promise<WriteOutcome> {
    const snapshot = await this.settings.backend.snapshot(this.conversationId);
    if (!snapshot) return overflow;
    if (expectedTouch !== undefined && snapshot.touch !== expectedTouch)
      return { status: 'conflict' };
    const also = await this.foldRings(compactor, snapshot, key);
    if (also.length === 0) return overflow;
    return this.settings.capacity.write(this.conversationId, {
      key,
      json,
      also,
      limits: this.settings.limits,
      expectedTouch: snapshot.touch,
      now: this.settings.now(),
    });
  }

  /** The soft-cap pass: folds rings, written only if nothing used the memory meanwhile. */
  private async foldPass(compactor: SummarizeCompactor): Promise<void> {
    const snapshot = await this.settings.backend.snapshot(this.conversationId);
    if (!snapshot) return;
    const [first, ...also] = await this.foldRings(compactor, snapshot);
    if (!first) return;
    // A conflict means another write came first: the next pass folds again.
    await this.settings.capacity.write(this.conversationId, {
      ...first,
      also,
      limits: this.settings.limits,
      expectedTouch: snapshot.touch,
      now: this.settings.now(),
    });
  }

  /** Every foldable ring of the snapshot folded (the entry being written and protected keys apart). */
  private async foldRings(
    compactor: SummarizeCompactor,
    snapshot: BackendSnapshotOf,
    writing?: string,
  ): Promise<Array<{ key: string; json: string }>> {
    const folded: Array<{ key: string; json: string }> = [];
    for (const [key, json] of snapshot.entries) {
      if (key === writing || !json.startsWith('[') || !compactor.mayFold(key)) continue;
      try {
        const ring = await compactor.fold(JSON.parse(json) as unknown[], this.summaries);
        if (ring) folded.push({ key, json: JSON.stringify(ring) });
      } catch (error) {
        this.logger.warn(
          `Summarizing ring "${key}" of ${this.conversationId} failed: ${String(error)}`,
        );
      }
    }
    return folded;
  }
}

function assertKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0 || containsNul(key) || hasLoneSurrogate(key)) {
    throw new InvalidArgumentError(
      'key',
      'must be a non-empty string of well-formed Unicode without U+0000',
    );
  }
}

function toJson(key: string, value: unknown): string {
  const json = value === undefined ? undefined : JSON.stringify(value);
  if (json === undefined)
    throw new InvalidArgumentError('value', `of "${key}" must be a JSON value`);
  return json;
}

function parseRing(key: string, json: string | undefined): unknown[] {
  if (json === undefined) return [];
  const value = JSON.parse(json) as unknown;
  if (!Array.isArray(value))
    throw new InvalidArgumentError('key', `"${key}" holds a value, not a ring`);
  return value;
}
