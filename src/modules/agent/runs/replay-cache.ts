import { Logger } from '@nestjs/common';
import type { AgentRunFlush } from '../interfaces/agent-run-steps.interface.js';
import type { RunStore } from './run-store.interface.js';
import { FLUSH_KEY, REPLAYED_PREFIX, stepsOfEntries } from './run-steps.js';

/**
 * A first attempt found another attempt of its run had stored a different base version first:
 * what it computed rests on another history. The runner begins the attempt again, reading first.
 */
export class FirstAttemptOvertakenError extends Error {
  constructor(readonly runId: string) {
    super(`Run ${runId}: another attempt of the run recorded its base version first`);
    this.name = 'FirstAttemptOvertakenError';
  }
}

/**
 * The run cache on a run store: the base version of each attempt scope, and each step
 * (model response, tool step) by its key. A step is computed once; if two workers race, the first
 * stored value wins and both continue with it, so every attempt sees the same bytes.
 */
export class ReplayCache {
  private readonly logger = new Logger('ReplayCache');
  /** A first attempt's view: steps stored without a read until one of them is found stored. */
  private unrecorded = false;
  /** A first attempt's base version, not stored yet: it goes with the attempt's first step. */
  private pendingBase?: readonly [key: string, value: string];
  /** The store call that carried the pending base: later steps wait for it, and fail as it did. */
  private storingBase?: Promise<void>;

  constructor(
    private readonly store: RunStore,
    /** The cache a first attempt's view was made from (it reads first). */
    private readonly base?: ReplayCache,
  ) {}

  /**
   * A view of this cache for one first attempt of a run (the attempt that started it: nothing was
   * recorded for the run before), whose steps are computed and stored without a read first: one
   * store call per step instead of two. Should a step be found stored all the same (another attempt
   * of the run runs at the same time: a takeover of a stalled process), the stored value wins, and
   * the view reads each later step first. For steps computed once per attempt; a step with side
   * effects (a tool call) takes {@link readingFirst}.
   */
  forFirstAttempt(): ReplayCache {
    const view = new ReplayCache(this.store, this.base ?? this);
    view.unrecorded = true;
    return view;
  }

  /** The cache reading each step before computing it: this one, or the one a view was made from. */
  readingFirst(): ReplayCache {
    return this.base ?? this;
  }

  /**
   * The recorded value of a step, or computes, records and returns it. `hit` tells which. Computed
   * values race to be stored: the first stored wins, and every caller continues with it.
   */
  async step<T>(
    runId: string,
    key: string,
    compute: () => Promise<T>,
  ): Promise<{ value: T; hit: boolean }> {
    const recorded = this.unrecorded ? undefined : await this.store.get(runId, key);
    if (recorded !== undefined) return { value: JSON.parse(recorded) as T, hit: true };
    const value = await compute();
    const json = JSON.stringify(value);
    const stored = await this.storeStep(runId, key, json);
    // Another attempt of the run stored this step first: from now on, read before computing.
    if (stored !== json) this.unrecorded = false;
    return { value: JSON.parse(stored) as T, hit: false };
  }

  /**
   * Stores a computed step unless one is stored; a first attempt's first step carries the attempt's
   * base version (one store call for both), and is stored only if that base is the one stored.
   */
  private async storeStep(runId: string, key: string, json: string): Promise<string> {
    const base = this.pendingBase;
    if (!base) {
      // A step beside the one carrying the base waits for it, and fails as it does.
      await this.storingBase;
      return this.store.putIfAbsent(runId, key, json);
    }
    this.pendingBase = undefined;
    const storing = this.store.putIfAbsentGuarded(runId, base, [key, json]).then((stored) => {
      if (stored.entry === undefined) throw new FirstAttemptOvertakenError(runId);
      return stored.entry;
    });
    this.storingBase = storing.then(() => undefined);
    this.storingBase.catch(() => undefined); // awaited by later steps, if any
    return storing;
  }

  /**
   * Stores a first attempt's base version if no step has carried it yet (an attempt commits only
   * once its base is stored, so a later attempt continues from the same history).
   */
  async settleBase(runId: string): Promise<void> {
    await this.storingBase;
    const base = this.pendingBase;
    if (!base) return;
    this.pendingBase = undefined;
    if ((await this.store.putIfAbsent(runId, ...base)) !== base[1])
      throw new FirstAttemptOvertakenError(runId);
  }

  /** The recorded value of a step, or `undefined` when none is (nothing is computed). */
  async peek<T>(runId: string, key: string): Promise<T | undefined> {
    const recorded = await this.store.get(runId, key);
    return recorded === undefined ? undefined : (JSON.parse(recorded) as T);
  }

  /**
   * Notes that a later attempt served the step `key` from the cache (for a run's step view). Best
   * effort, like {@link recordFlush}: inspection data never fails a turn.
   */
  async markReplayed(runId: string, key: string): Promise<void> {
    await this.bestEffort(runId, () => this.store.put(runId, `${REPLAYED_PREFIX}${key}`, '1'));
  }

  /**
   * Records the outcome of the run's long-term flush (the latest attempt's). Best effort: it is
   * written after the commit, which must not be reported as failed for it.
   */
  async recordFlush(runId: string, outcome: AgentRunFlush): Promise<void> {
    await this.bestEffort(runId, () => this.store.put(runId, FLUSH_KEY, JSON.stringify(outcome)));
  }

  private async bestEffort(runId: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.logger.warn(`Run ${runId}: step details not recorded: ${(error as Error).message}`);
    }
  }

  /** The run's recorded steps and flush, read back for inspection. */
  async recorded(runId: string): Promise<ReturnType<typeof stepsOfEntries>> {
    return stepsOfEntries(await this.store.entries(runId));
  }

  /**
   * The base version recorded for an attempt scope, recording `current` if it is the first. A first
   * attempt's view answers `current` and stores it with the attempt's first step (nothing of the
   * run is stored before it, so nothing can depend on the base until then).
   */
  async baseVersion(runId: string, scope: number, current: number): Promise<number> {
    if (this.unrecorded) {
      this.pendingBase = [`base:${scope}`, String(current)];
      return current;
    }
    return Number(await this.store.putIfAbsent(runId, `base:${scope}`, String(current)));
  }

  /** The newest attempt scope this run recorded (0 if none). */
  async latestScope(runId: string, maxScopes: number): Promise<number> {
    if (this.unrecorded) return 0;
    let scope = 0;
    while (
      scope + 1 <= maxScopes &&
      (await this.store.get(runId, `base:${scope + 1}`)) !== undefined
    )
      scope += 1;
    return scope;
  }
}
