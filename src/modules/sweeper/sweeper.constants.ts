/** Injection token of the app's shared sweep scheduler (provided by `SweeperModule`). */
export const SWEEP_SCHEDULER = 'AgentMemory:SweepScheduler';
