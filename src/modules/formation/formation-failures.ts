import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { formedEntityOf } from '../longterm/recall/derived-entities.js';
import type { FormationMessage } from './formation-model.interface.js';

/** Key prefix of the notes of failed jobs in an entity's formed-memory entity. */
const FAILED_KEY_PREFIX = 'failed/';

/** A formation job that spent its attempts: kept so it can be seen (and run again). */
export interface FailedFormation {
  jobId: string;
  conversationId: string;
  runId: string;
  error: string;
  /** The error's class name (`FormationAnswerError`, `LlmResponseError`…), when it had one. */
  errorName?: string;
  attempts: number;
  /** When the job was queued (epoch ms). */
  at: number;
  /**
   * The messages the job read (within its input budget), so it can run again; absent on notes
   * written before re-runs were possible, which cannot run again.
   */
  messages?: FormationMessage[];
  /** The context the job read, or where it ends (the conversation's version), to read it again. */
  context?: FormationMessage[];
  before?: number;
}

/** The job a note is written for. */
export interface FailedJob {
  jobId: string;
  conversationId: string;
  runId: string;
  seq: number;
  observedAt: number;
  messages?: FormationMessage[];
  context?: FormationMessage[];
  before?: number;
}

/**
 * The notes of an entity's failed formation jobs, stored beside its formed memories (erased with
 * the entity, at the job's seq: an erasure since refuses a note too), one per job, in job id order.
 */
export class FormationFailures {
  constructor(private readonly longterm: LongtermMemoryService) {}

  /**
   * Notes that a job spent its attempts (a later note of the same job replaces it). Best effort: a
   * note that cannot be written is not an error of its own.
   */
  async record(
    entityId: string,
    job: FailedJob,
    failure: { error: string; errorName?: string; attempts: number },
  ): Promise<void> {
    const value: FailedFormation = {
      jobId: job.jobId,
      conversationId: job.conversationId,
      runId: job.runId,
      error: failure.error.slice(0, 1_000),
      ...(failure.errorName ? { errorName: failure.errorName } : {}),
      attempts: failure.attempts,
      at: job.observedAt,
      ...(job.messages ? { messages: job.messages } : {}),
      ...(job.context?.length ? { context: job.context } : {}),
      ...(job.before === undefined ? {} : { before: job.before }),
    };
    await this.longterm
      .save({
        entityId: formedEntityOf(entityId),
        key: FAILED_KEY_PREFIX + job.jobId,
        value: { ...value },
        seq: job.seq,
        updatedAt: job.observedAt,
      })
      .catch(() => undefined);
  }

  /** A page of the notes, in job id order: at most `limit`, after the job id `after`. */
  list(entityId: string, limit: number, after?: string): Promise<FailedFormation[]> {
    return formedPage<FailedFormation>(this.longterm, entityId, FAILED_KEY_PREFIX, limit, after);
  }

  /** One job's note, or null. */
  async get(entityId: string, jobId: string): Promise<FailedFormation | null> {
    const record = await this.longterm.store.load(
      formedEntityOf(entityId),
      FAILED_KEY_PREFIX + jobId,
    );
    return record ? (record.value as unknown as FailedFormation) : null;
  }

  /** Removes a job's note, at a seq at or above the note's (a job that ran again took a new one). */
  async clear(entityId: string, jobId: string, seq: number): Promise<void> {
    await this.longterm.store.delete(formedEntityOf(entityId), FAILED_KEY_PREFIX + jobId, seq);
  }
}

/**
 * A page of the values an entity's formed-memory entity keeps under `prefix` (job records, failure
 * notes), in key order: at most `limit`, after the key `prefix + after`.
 */
export async function formedPage<T>(
  longterm: LongtermMemoryService,
  entityId: string,
  prefix: string,
  limit: number,
  after?: string,
): Promise<T[]> {
  const records = await longterm.store.search(
    formedEntityOf(entityId),
    prefix,
    limit,
    after === undefined ? undefined : prefix + after,
  );
  return records.map((record) => record.value as unknown as T);
}
