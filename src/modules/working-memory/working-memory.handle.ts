import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { containsNul, hasLoneSurrogate } from '../../common/utf8.js';
import { assertConversationId } from '../chat-memory/validation/chat-memory-arguments.js';
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
  WorkingMemoryHandle,
  WorkingMemoryLimits,
} from './interfaces/working-memory.interface.js';

/** What every handle of a service shares. */
export interface HandleSettings {
  backend: WorkingMemoryBackend;
  limits: WorkingMemoryLimits;
  compactor?: DropOldestCompactor | SummarizeCompactor;
  now: () => number;
}

/** Conditional-write attempts of one `append` before `WorkingMemoryContentionError`. */
const MAX_ATTEMPTS = 50;

/** {@link WorkingMemoryHandle} over a backend's atomic primitives. */
export class DefaultWorkingMemoryHandle implements WorkingMemoryHandle {
  private readonly logger = new Logger('WorkingMemory');

  constructor(
    readonly conversationId: string,
    private readonly settings: HandleSettings,
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
    await this.write(key, toJson(key, value));
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.settings.backend.remove(this.conversationId, key, this.settings.now());
  }

  async append(key: string, item: unknown, maxItems = 64): Promise<void> {
    assertKey(key);
    if (!Number.isInteger(maxItems) || maxItems < 1)
      throw new InvalidArgumentError('maxItems', 'must be a positive integer');
    const itemJson = toJson(key, item);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const { json, touch } = await this.settings.backend.read(
        this.conversationId,
        key,
        false,
        this.settings.now(),
      );
      const ring = parseRing(key, json);
      const next = `[${[...ring.map((value) => JSON.stringify(value)), itemJson].slice(-maxItems).join(',')}]`;
      if ((await this.write(key, next, touch)).status !== 'conflict') return;
      // Another writer got in between: wait a little (jittered), read again.
      await sleep(Math.random() * Math.min(20, 2 ** attempt));
    }
    throw new WorkingMemoryContentionError(key);
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

  /**
   * Writes with the caps. Drop-oldest compaction happens inside the backend's atomic write; the
   * summarizing compactor folds rings first and the write is tried again. A write that still does
   * not fit throws `WorkingMemoryOverflowError` and changes nothing.
   */
  private async write(key: string, json: string, expectedTouch?: number): Promise<WriteOutcome> {
    const { backend, limits, compactor, now } = this.settings;
    const eviction = compactor instanceof DropOldestCompactor ? compactor.policy : undefined;
    let outcome = await backend.write(this.conversationId, {
      key,
      json,
      limits,
      eviction,
      expectedTouch,
      now: now(),
    });
    if (
      compactor instanceof SummarizeCompactor &&
      (outcome.status === 'overflow' || (outcome.status === 'ok' && outcome.crossedSoftCap))
    ) {
      const folded = await this.foldRings(compactor);
      if (outcome.status === 'overflow' && folded) {
        // Folding changed the memory: a conditional write (append) must read it again.
        if (expectedTouch !== undefined) return { status: 'conflict' };
        outcome = await backend.write(this.conversationId, { key, json, limits, now: now() });
      }
    }
    if (outcome.status === 'overflow')
      throw new WorkingMemoryOverflowError(key, outcome.attemptedBytes, limits.capBytes);
    if (outcome.status === 'ok' && outcome.crossedSoftCap) {
      this.logger.warn(
        `Working memory of ${this.conversationId} is at ${outcome.sizeBytes} bytes, over its soft cap of ${limits.softCapBytes}` +
          (outcome.evicted.length ? `; evicted ${outcome.evicted.join(', ')}` : ''),
      );
    }
    return outcome;
  }

  /** One pass of the summarizing compactor over every ring; true if any shrank. */
  private async foldRings(compactor: SummarizeCompactor): Promise<boolean> {
    const snapshot = await this.settings.backend.snapshot(this.conversationId);
    let shrank = false;
    for (const [key, json] of snapshot?.entries ?? []) {
      if (!json.startsWith('[')) continue;
      try {
        const folded = await compactor.fold(JSON.parse(json) as unknown[]);
        if (!folded) continue;
        const outcome = await this.settings.backend.write(this.conversationId, {
          key,
          json: JSON.stringify(folded),
          limits: this.settings.limits,
          now: this.settings.now(),
        });
        shrank ||= outcome.status === 'ok';
      } catch (error) {
        this.logger.warn(
          `Summarizing ring "${key}" of ${this.conversationId} failed: ${String(error)}`,
        );
      }
    }
    return shrank;
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
