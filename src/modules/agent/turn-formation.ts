import { Logger } from '@nestjs/common';
import type { Span } from '@opentelemetry/api';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MemoryFormationModel } from '../formation/formation-model.interface.js';
import type { ResolvedFormation } from '../formation/formation.options.js';
import { FormedMemories } from '../formation/formed-memories.js';
import { shareEntityLeases } from '../formation/entity-leases.js';
import type { EntityProfiles } from '../formation/profile/entity-profiles.js';
import {
  type FormationJob,
  type FormationOutcome,
  MemoryFormation,
} from '../formation/memory-formation.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { FormationBatches } from './formation-batches.js';
import { FormationSlots, tenantOfEntity } from './formation-slots.js';
import { type FormationRerun, REFUSED, rerunFailedJob, SHUTTING_DOWN } from './formation-rerun.js';
import {
  jobOfTurns,
  warnOfDropped,
  contextBefore,
  journaledTurn,
  type TurnFormationParts,
} from './formation-turns.js';
import type { FormationJournal, JournaledFormation } from './formation-journal.js';
import { FORMATION_VERSION } from './formation-reservation.js';
export type { FormationRerun } from './formation-rerun.js';
import { inFormationSpan, recordFormation } from './formation-span.js';
import type { AgentRunResult } from './interfaces/agent-run.interface.js';
import type { ReplayCache } from './runs/replay-cache.js';

/** Wait before the second attempt; each later one waits four times longer, at most a minute. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * Memory formation after each committed turn of a run with an entity (`formation`): the turn's
 * user and assistant text become a formation job, run in the background of this process — never
 * on the turn's latency —, at most `concurrency` at once (in order), retried with backoff, and noted
 * as failed when its attempts are spent, when it would close a memory changed since it read it, or
 * when the app shuts down before it ran. Its seq and time were recorded as the run began (a turn
 * whose reservation is gone — its entity erased meanwhile — forms nothing), and each model answer
 * is recorded, all under the run's id: an attempt after a crash writes exactly what the first
 * would have, and erasing the entity's runs erases them.
 */
export class TurnFormation {
  private readonly logger = new Logger('Agent');
  private readonly pending = new Set<Promise<void>>();
  private readonly formation: MemoryFormation;
  private readonly stopped = new AbortController();
  /** The slots jobs run in (per tenant in turn), and each tenant's jobs pending here. */
  private readonly slots: FormationSlots;
  private readonly pendingOf = new Map<string, number>();
  /** The runs whose job runs in this process now. */
  private readonly forming = new Set<string>();
  /** With `every`: turns waiting for their conversation's next ones. */
  private readonly batches?: FormationBatches;
  /** The entity's formed memories (what the recall block and the HTTP routes read). */
  readonly memories: FormedMemories;
  /** With `formation.profile`: the entity profiles jobs patch. */
  readonly profiles?: EntityProfiles;
  private readonly journal?: FormationJournal;

  constructor(
    private readonly longterm: LongtermMemoryService,
    private readonly cache: ReplayCache,
    model: MemoryFormationModel,
    private readonly resolved: ResolvedFormation,
    private readonly parts: TurnFormationParts = {},
  ) {
    this.profiles = this.parts.profiles;
    this.journal = this.parts.journal;
    if (this.parts.leases) shareEntityLeases(longterm, this.parts.leases);
    this.memories = new FormedMemories(longterm);
    this.slots = new FormationSlots(resolved.concurrency, resolved.tenants.concurrency);
    const { every } = resolved;
    if (every.turns > 1 || every.quietMs > 0)
      this.batches = new FormationBatches(every, (jobs) => this.form(jobs));
    this.formation = new MemoryFormation(
      this.memories,
      model,
      async (job, step, compute) =>
        (await cache.step(job.runId, `${FORMATION_VERSION}:${step}`, compute)).value,
      resolved.settings,
      this.profiles,
      this.parts.leases,
    );
  }

  /**
   * A turn committed, its run not yet recorded completed: with a journal, its job is noted first
   * (what a process that dies before the job ends leaves for another), then memories of its entity
   * are formed in the background. Never throws: a note that cannot be written is logged, and the
   * job runs here all the same.
   */
  async afterCommit(turn: {
    entityId?: string;
    conversationId: string;
    result: AgentRunResult;
  }): Promise<void> {
    const { entityId, conversationId, result } = turn;
    if (!entityId || !this.longterm.enabled || this.forming.has(result.runId)) return;
    const job = journaledTurn(
      { entityId, conversationId, result },
      this.resolved.settings.maxInputTokens * 4,
    );
    if (!job) return;
    try {
      await this.journal?.note(job);
    } catch (error) {
      this.logger.warn(
        `Formation job of run ${result.runId} not noted (it is lost if this process dies before it ends): ${(error as Error).message}`,
      );
    }
    // With `every`, the turn waits for its conversation's next ones (at most `maxPending` wait).
    if (this.batches && this.batches.size < this.resolved.maxPending) this.batches.add(job);
    else this.form([job]);
  }

  /**
   * Recovers, now and then every lease, the jobs of processes that died before they ended (with a
   * journal: a run store shared by the app's processes and restarts).
   */
  startRecovery(): Promise<void> {
    const hasRoom = (job: JournaledFormation) =>
      this.admission(this.tenantOf(job.entityId)) === undefined;
    return this.journal?.start((job) => this.form([job]), hasRoom) ?? Promise.resolve();
  }

  /** Takes over no more jobs of other processes (at shutdown). */
  stopRecovery(): Promise<void> {
    return this.journal?.stopRecovering() ?? Promise.resolve();
  }

  /** Runs a job of one or more turns in the background, each turn in one job at a time here. */
  private form(turns: JournaledFormation[]): void {
    const jobs = turns.filter((job) => !this.forming.has(job.runId));
    if (jobs.length === 0) return;
    const runId = jobs.at(-1)!.runId;
    const tenant = this.tenantOf(jobs[0]!.entityId);
    // Admitted or not now, as it comes: past a bound, the job is noted as failed, not queued.
    const full = this.admission(tenant);
    this.pendingOf.set(tenant, (this.pendingOf.get(tenant) ?? 0) + 1);
    const work = this.formTurns(jobs, tenant, full)
      .catch((error: unknown) =>
        this.logger.warn(`Memory formation of run ${runId} failed: ${(error as Error).message}`),
      )
      .finally(() => {
        this.pending.delete(work);
        const left = this.pendingOf.get(tenant)! - 1;
        if (left > 0) this.pendingOf.set(tenant, left);
        else this.pendingOf.delete(tenant);
        for (const job of jobs) this.forming.delete(job.runId);
      });
    for (const job of jobs) this.forming.add(job.runId);
    this.pending.add(work);
  }

  /**
   * Resolves once the jobs begun are done (at shutdown, before the stores close): a job running
   * ends its attempt; jobs waiting for a slot or a retry start no new one: they are noted as
   * failed, or, with a journal, left in it for the next process.
   */
  async settle(): Promise<void> {
    this.stopped.abort();
    // Batches waiting for more turns end now as jobs that start no attempt (noted, or journaled).
    this.batches?.flush();
    await this.journal?.stopRecovering();
    this.slots.close();
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    // Alive until its attempts in flight ended: none is taken over while it still runs here.
    await this.journal?.stop();
  }

  /**
   * A job of a conversation's turns (one, or a batch with `every`) to its end — written, or noted
   * as failed — then its turns leave the journal. It reads the turns whose reservation is still
   * there (a turn of an entity erased since has none) and writes at the newest one's seq and time,
   * named by its run: the job of a batch is the job of its last turn.
   */
  private async formTurns(
    turns: JournaledFormation[],
    tenant: string,
    full?: string,
  ): Promise<void> {
    const job = await jobOfTurns(turns, {
      cache: this.cache,
      maxChars: this.resolved.settings.maxInputTokens * 4,
      // A job not queued reads no context (it is noted with where its context ends).
      context: full ? undefined : (first) => contextBefore(this.parts.context, first, this.logger),
    });
    const failed = job
      ? await inFormationSpan(job, (span) => this.attempts(job, tenant, span, full))
      : undefined;
    for (const turn of turns) await this.journal?.forget(turn.runId);
    if (failed) throw new Error(failed);
  }

  /**
   * The job's attempts, with backoff: resolves nothing once it is written, its error once it is
   * noted as failed. At shutdown, a job with a journal stays in it (another process, or the next
   * start, forms it): that throws.
   */
  private async attempts(
    job: FormationJob,
    tenant: string,
    span?: Span,
    full?: string,
  ): Promise<string | undefined> {
    const { entityId } = job;
    const note = async (error: string, attempts: number, errorName = 'FormationRefusedError') => {
      await this.memories.recordFailure(entityId, job, { error, errorName, attempts });
      recordFormation(span, job, errorName === 'FormationRefusedError' ? 'refused' : 'failed');
      return error;
    };
    const shutDown = (attempts: number) => {
      if (!this.journal) return note(SHUTTING_DOWN, attempts);
      recordFormation(span, job, 'left-for-next-process');
      return Promise.reject(new Error(`${SHUTTING_DOWN}; it stays journaled for the next process`));
    };
    if (full) return note(full, 0, 'FormationQueueFullError');
    for (let attempt = 1; ; attempt += 1) {
      if (this.stopped.signal.aborted) return shutDown(attempt - 1);
      let outcome: FormationOutcome;
      try {
        outcome = await this.run(job, tenant);
      } catch (error) {
        if (this.stopped.signal.aborted) return shutDown(attempt - 1);
        if (attempt >= this.resolved.attempts)
          return note((error as Error).message, attempt, (error as Error).name);
        const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 4 ** (attempt - 1));
        this.logger.warn(
          `Memory formation of run ${job.runId}: attempt ${attempt} of ${this.resolved.attempts} failed (${describeFailure(error)}); retrying in ${wait} ms`,
        );
        await sleep(wait, undefined, { signal: this.stopped.signal }).catch(() => undefined);
        continue;
      }
      if (outcome.status === 'refused') return note(REFUSED, attempt);
      if (outcome.status === 'written') warnOfDropped(this.logger, job.runId, outcome.record);
      recordFormation(span, job, outcome.status, outcome.record);
      return undefined;
    }
  }

  /**
   * Runs a failed job again, now, one attempt (in a slot of its tenant, like any job): see
   * {@link rerunFailedJob}.
   */
  rerun(entityId: string, runId: string): Promise<FormationRerun | null> {
    const tenant = this.tenantOf(entityId);
    return rerunFailedJob(
      this.memories,
      entityId,
      runId,
      (job) => this.run(job, tenant),
      (failed) => contextBefore(this.parts.context, failed, this.logger),
    );
  }

  /**
   * Runs a job once its entity's earlier jobs ended (here, and their lease elsewhere), its own
   * work in a slot of its tenant (at most `concurrency` at once, tenants in turn): a job waiting
   * for its entity holds no slot. Throws when the app shut down while it waited.
   */
  private run(job: FormationJob, tenant: string): Promise<FormationOutcome> {
    const slot = async <T>(work: () => Promise<T>): Promise<T> => {
      if (!(await this.slots.acquire(tenant))) throw new Error(SHUTTING_DOWN); // woken by it
      try {
        if (this.stopped.signal.aborted) throw new Error(SHUTTING_DOWN);
        return await work();
      } finally {
        this.slots.release(tenant);
      }
    };
    return this.formation.run(job, { slot, signal: this.stopped.signal });
  }

  /** Why a job of the tenant would not be queued now (a bound reached), or `undefined`. */
  private admission(tenant: string): string | undefined {
    const { maxPending, tenants } = this.resolved;
    if (this.pending.size >= maxPending)
      return `${maxPending} formation jobs were pending in this process`;
    if ((this.pendingOf.get(tenant) ?? 0) >= tenants.maxPending)
      return `${tenants.maxPending} formation jobs of the entity's tenant were pending here`;
    return undefined;
  }

  private tenantOf(entityId: string): string {
    return tenantOfEntity(this.resolved.tenants.ownerOf, entityId, this.logger);
  }
}

/** An error as `Name: message`, or what was thrown, in words. */
function describeFailure(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
