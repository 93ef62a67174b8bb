import type { AppliedOperation } from '../formation/formed-memory.interface.js';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import type { FormedMemories } from '../formation/formed-memories.js';
import type { FormationJob, FormationOutcome } from '../formation/memory-formation.js';
import { FORMATION_VERSION } from './formation-reservation.js';

/** Why a job stops when the app shuts down. */
export const SHUTTING_DOWN = 'the app shut down before the job ran';
/** Why a job's write was refused. */
export const REFUSED =
  'a memory this job would close changed since it read it (a correction, a later job), or the entity was erased';

/** What running a failed job again did. */
export type FormationRerun =
  | { status: 'written' | 'already-written'; operations: AppliedOperation[] }
  | { status: 'failed' | 'not-rerunnable'; error: string; errorName?: string };

/**
 * Runs a failed job again, now, one attempt (through `run`: in a slot, like any job), with the
 * context it read (or, noted before it read one, read now): the note of the turn's run `runId`
 * names it. `null` when the entity has no such note. Written (or found written): the note
 * is removed; failed or refused again: the note is kept, with the new error and one more
 * attempt. The job writes at a new seq (erasure still wins) and at the time of the turn.
 */
export async function rerunFailedJob(
  memories: FormedMemories,
  entityId: string,
  runId: string,
  run: (job: FormationJob) => Promise<FormationOutcome>,
  /** Reads the context a job noted before it read one (its turn's place in the conversation). */
  readContext: (at: {
    conversationId: string;
    before?: number;
  }) => Promise<FormationMessage[]> = async () => [],
): Promise<FormationRerun | null> {
  const jobId = `${runId}/${FORMATION_VERSION}`;
  const failed = await memories.failed.get(entityId, jobId);
  if (!failed) return null;
  if (!failed.messages?.length)
    return { status: 'not-rerunnable', error: 'the note was kept without the turn it read' };
  const job: FormationJob = {
    jobId,
    entityId,
    conversationId: failed.conversationId,
    runId,
    messages: failed.messages,
    context: failed.context ?? (await readContext(failed)),
    ...(failed.before === undefined ? {} : { before: failed.before }),
    observedAt: failed.at,
    seq: await memories.nextSeq(entityId),
  };
  const again = async (error: string, errorName?: string) => {
    const named = errorName ? { errorName } : {};
    await memories.recordFailure(entityId, job, {
      error,
      ...named,
      attempts: failed.attempts + 1,
    });
    return { status: 'failed' as const, error, ...named };
  };
  let outcome: FormationOutcome;
  try {
    outcome = await run(job);
  } catch (error) {
    return again((error as Error).message, (error as Error).name);
  }
  if (outcome.status === 'refused') return again(REFUSED, 'FormationRefusedError');
  await memories.failed.clear(entityId, jobId, job.seq);
  return { status: outcome.status, operations: outcome.record.operations };
}
