/** The run-cache key of a run's record. */
export const STATUS_KEY = 'status';

/** The run-cache key holding when a run was first claimed: its record's `createdAt`. */
export const CLAIMED_AT_KEY = 'claimedAt';
