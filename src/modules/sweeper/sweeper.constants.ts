/** Injection token of the app's shared sweep scheduler (provided by `SweeperModule`). */
export const SWEEP_SCHEDULER = 'AgentMemory:SweepScheduler';

/** Internal token of the opened driver and what releases its connection. */
export const SWEEP_DRIVER = Symbol('SweepDriver');

/** Internal token of the validated `SweeperModule` options. */
export const SWEEPER_OPTIONS = Symbol('SweeperOptions');
