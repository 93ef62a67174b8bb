/** A periodic maintenance pass: expired long-term rows, idle working memories, old runs. */
export interface SweepTask {
  /**
   * Unique within the app (`longterm-expiry`, `working-memory-idle`, `agent-runs`): instances that
   * share a Bull scheduler run one pass per tick of a name between them.
   */
  name: string;
  /** Time between passes. */
  everyMs: number;
  /** One bounded pass. An error is logged; the next tick tries again. */
  run(): Promise<unknown>;
}

/** A scheduled task: `stop()` takes no new tick and resolves once a running pass has finished. */
export interface ScheduledSweep {
  /** Cancels later ticks; resolves once a pass that is running has finished. */
  stop(): Promise<void>;
}

/**
 * The port that runs sweeps (long-term expiry, idle working memory, run retention). Drivers: in-process
 * intervals (the default, one timer per instance) and Bull repeatable jobs (one pass per tick
 * across every instance).
 */
export interface SweepScheduler {
  /** Starts running `task` every `everyMs`; resolves with the handle that stops it. */
  schedule(task: SweepTask): Promise<ScheduledSweep>;
}
