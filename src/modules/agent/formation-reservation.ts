import type { FormedMemories } from '../formation/formed-memories.js';
import type { ReplayCache } from './runs/replay-cache.js';

/** The version of the formation a job names: a new version forms a turn again. */
export const FORMATION_VERSION = 'formation-v1';

/** What a turn's formation job writes at: its seq and time, fixed for every attempt. */
export interface FormationReservation {
  seq: number;
  at: number;
}

/**
 * The seq and time of the run's formation job, recorded in the run cache the first time (as the
 * run begins, before its model call): an erasure of the entity while the turn is in flight marks
 * above the seq, so the job then writes nothing; every later attempt, and the job itself, read the
 * same values. Stored under the run's own id, so erasing the entity's runs erases it too.
 */
export async function reserveFormation(
  cache: ReplayCache,
  memories: FormedMemories,
  runId: string,
  entityId: string,
): Promise<FormationReservation> {
  const { value } = await cache.step(runId, `${FORMATION_VERSION}:queued`, async () => ({
    seq: await memories.nextSeq(entityId),
    at: Date.now(),
  }));
  return value;
}

/**
 * The reservation the run made as it began, or `undefined` when there is none any more: the
 * entity was erased meanwhile (its runs' records with it), or the run's records expired. The job
 * is then not formed: a new seq would be above the erasure's mark.
 */
export function reservedFormation(
  cache: ReplayCache,
  runId: string,
): Promise<FormationReservation | undefined> {
  return cache.peek<FormationReservation>(runId, `${FORMATION_VERSION}:queued`);
}
