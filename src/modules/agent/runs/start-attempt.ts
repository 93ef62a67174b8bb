import type { RunRecords, RunSnapshot } from './run-records.js';

/** An attempt as it started: its number among the run's attempts, and whether it is the first. */
export interface StartedAttempt {
  attempts: number;
  /**
   * This attempt wrote the run's first attempt: nothing was recorded for the run before it, so its
   * steps need no read before they are stored (see `ReplayCache.forFirstAttempt`).
   */
  first: boolean;
}

/**
 * An attempt begins: the run's record says `running`, one more attempt, held by `owner` (one
 * compare-and-set; see `RunRecords.set`), unless the run's claim stored that record already
 * (`known.firstAttempt`). A record the transition does not apply to (completed meanwhile, or
 * another conversation's) is answered as it is, never as a first attempt.
 */
export async function startAttempt(
  records: RunRecords,
  run: { runId: string; conversationId: string; owner: string },
  known: RunSnapshot,
): Promise<StartedAttempt> {
  // Its claim stored the record already (see `RunRecords.firstAttempt`).
  if (known.firstAttempt) {
    known.firstAttempt = false;
    return { attempts: 1, first: true };
  }
  const details = { startsAttempt: true, owner: run.owner };
  const record = await records.set(run.runId, run.conversationId, 'running', details, known);
  return {
    attempts: record.attempts ?? 1,
    first:
      record.status === 'running' &&
      record.attempts === 1 &&
      record.conversationId === run.conversationId,
  };
}
