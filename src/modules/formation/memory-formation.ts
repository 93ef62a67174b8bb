import { KeyedSerial } from '../../common/keyed-serial.js';
import {
  type ActiveMemoryCap,
  DEFAULT_ACTIVE_MEMORY_CAP,
  tallyActive,
  withinCap,
} from './active-memory-cap.js';
import {
  candidateWithinTime,
  type Consolidation,
  consolidate,
  distinctMemories,
} from './consolidation-rules.js';
import type {
  ChoiceAnswer,
  ExtractionAnswer,
  FormationMessage,
  FormationUsage,
  MemoryFormationModel,
} from './formation-model.interface.js';
import { type EntityLease, type EntityLeases, entityLeaseName } from './entity-leases.js';
import type { EntityProfiles } from './profile/entity-profiles.js';
import { patchedPaths } from './profile/merge-patch.js';
import type { FormationJobRecord, FormedMemories } from './formed-memories.js';
import type { FormedMemory } from './formed-memory.interface.js';
import {
  affordableCandidates,
  DEFAULT_MAX_JOB_TOKENS,
  OVER_BUDGET,
  NO_USAGE,
  sumUsage,
  withinBudget,
} from './job-budget.js';

/** One formation job: the messages of one committed turn, for one entity. */
export interface FormationJob {
  /** Names the job across attempts (the turn's run id and the formation version). */
  jobId: string;
  entityId: string;
  conversationId: string;
  runId: string;
  /** The turn's messages memories are drawn from (a memory may rest only on these). */
  messages: FormationMessage[];
  /** Earlier messages of the conversation, for context only. */
  context: FormationMessage[];
  /** The conversation's version before the turn's messages (where `context` ends), when known. */
  before?: number;
  /** When the turn was committed (epoch ms): the time of everything the job writes. */
  observedAt: number;
  /** The seq the job writes at, taken when it was queued (`FormedMemories.nextSeq`). */
  seq: number;
}

/**
 * Records a step's answer the first time the job computes it and replays it on every later attempt,
 * so a retried job consolidates exactly what its first attempt did (the agent's run cache).
 */
export type FormationStepRecorder = <T>(
  job: FormationJob,
  step: string,
  compute: () => Promise<T>,
) => Promise<T>;

/** Recalls of neighbours a job runs at once. */
const PARALLEL_RECALLS = 4;

/** Limits of a formation job. */
export interface FormationSettings {
  /** The kinds of memory asked for (default `fact`, `preference`, `event`). */
  kinds: string[];
  /** Candidates after this many are dropped (default 20). */
  maxCandidates: number;
  /** How many of the entity's active memories each candidate is compared with (default 5). */
  neighbours: number;
  /**
   * Most tokens of the turn's text the extraction reads (default 4,000, at about 4 characters a
   * token): the messages in order, the last one read cut at the budget, later ones left out.
   */
  maxInputTokens: number;
  /**
   * The most active memories (and bytes of their text) an entity holds: an ADD past it is not
   * written (NONE, `overruled` says why); updates and retractions always apply. Default
   * {@link DEFAULT_ACTIVE_MEMORY_CAP}.
   */
  maxActive?: ActiveMemoryCap;
  /**
   * Most tokens a job spends, both calls, prompt and completion (default 20,000): the candidates
   * the consolidation call would carry past it (estimated before the call) are not asked about —
   * NONE, with `overruled` saying why. The extraction is bounded by `maxInputTokens`.
   */
  maxJobTokens?: number;
}

/** How a job is run beside others (`MemoryFormation.run`). */
export interface FormationRunOptions {
  /** Runs the job's work when its turn came (a queue's slot); default: at once. */
  slot?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Ends the wait for the entity's lease (the app shutting down). */
  signal?: AbortSignal;
}

/** What became of a job: written now, found written by an earlier attempt, or refused by the store. */
export interface FormationOutcome {
  status: 'written' | 'already-written' | 'refused';
  record: FormationJobRecord;
  usage: FormationUsage;
}

/** The default limits. */
export const DEFAULT_FORMATION_SETTINGS: Readonly<FormationSettings> = Object.freeze({
  kinds: ['fact', 'preference', 'event'],
  maxCandidates: 20,
  neighbours: 5,
  maxInputTokens: 4_000,
  maxActive: DEFAULT_ACTIVE_MEMORY_CAP,
  maxJobTokens: DEFAULT_MAX_JOB_TOKENS,
});

/** What the consolidation step records: the neighbours it compared with, and the model's choices. */
interface RecordedChoice extends ChoiceAnswer {
  neighbours: FormedMemory[][];
  /** The candidates asked about within the job's token budget (absent: all). */
  affordable?: number;
}

/**
 * Forms memories from a committed turn: extracts candidates, compares each with the entity's
 * nearest active memories, lets the model choose, applies the consolidation rules and writes the
 * result with the job's record. Exactly once: a job whose record exists is not run again, and the
 * model's answers (with the memories they were compared with) are recorded, so a retry after a
 * crash writes the same versions at the same seq. Jobs of one entity run one at a time (across
 * processes with `leases`), and a job that would close a version changed since it read it (a
 * correction, a later job) writes nothing (`refused`).
 */
export class MemoryFormation {
  /** Each entity's jobs, one at a time. */
  private readonly jobs = new KeyedSerial();

  constructor(
    private readonly memories: FormedMemories,
    private readonly model: MemoryFormationModel,
    private readonly record: FormationStepRecorder,
    private readonly settings: FormationSettings = DEFAULT_FORMATION_SETTINGS,
    /** With `formation.profile`: the profiles a job's patch goes to. */
    private readonly profiles?: EntityProfiles,
    /** Across processes: the entity leases a job holds (none: one process forms the entity). */
    private readonly leases?: EntityLeases,
  ) {}

  /**
   * Runs a job once the entity's earlier jobs ended: in this process, and with `leases` in the
   * app's other processes too (two jobs of an entity never consolidate against the same memories).
   * `slot` runs the job's own work once its turn came (a queue's slot: waiting for the entity's
   * earlier jobs or lease takes none); `signal` ends the wait for the lease.
   */
  run(job: FormationJob, options: FormationRunOptions = {}): Promise<FormationOutcome> {
    const { leases } = this;
    const { slot = (work) => work(), signal } = options;
    return this.jobs.run(job.entityId, () =>
      leases
        ? leases.hold(
            entityLeaseName('job', job.entityId),
            (lease) => slot(() => this.runNow(job, lease)),
            signal,
          )
        : slot(() => this.runNow(job)),
    );
  }

  private async runNow(job: FormationJob, lease?: EntityLease): Promise<FormationOutcome> {
    const done = await this.memories.job(job.entityId, job.jobId);
    if (done) return { status: 'already-written', record: done, usage: NO_USAGE };
    const { kinds, maxCandidates, neighbours: k, maxInputTokens } = this.settings;
    const messages = withinBudget(job.messages, maxInputTokens * 4);
    const extracted = await this.record<ExtractionAnswer>(job, 'extract', async () =>
      this.model.extract({
        entityId: job.entityId,
        messages,
        context: job.context,
        kinds,
        maxCandidates,
        observedAt: job.observedAt,
        ...(this.profiles
          ? {
              profile: {
                schema: this.profiles.schema.options.schema,
                document: (await this.profiles.get(job.entityId))?.document ?? {},
              },
            }
          : {}),
      }),
    );
    const candidates = extracted.candidates
      .slice(0, maxCandidates)
      .map((candidate) => candidateWithinTime(candidate, job.observedAt));
    const chosen = await this.record<RecordedChoice>(job, 'choose', async () => {
      if (candidates.length === 0) return { neighbours: [], choices: [] };
      const neighbours: FormedMemory[][] = [];
      for (let at = 0; at < candidates.length; at += PARALLEL_RECALLS)
        neighbours.push(
          ...(await Promise.all(
            candidates
              .slice(at, at + PARALLEL_RECALLS)
              .map((c) => this.memories.nearest(job.entityId, c.text, k, job.observedAt)),
          )),
        );
      const spent = extracted.usage
        ? extracted.usage.promptTokens + extracted.usage.completionTokens
        : 0;
      const budget = this.settings.maxJobTokens ?? DEFAULT_MAX_JOB_TOKENS;
      const affordable = affordableCandidates(candidates, neighbours, spent, budget);
      if (affordable === 0) return { neighbours: [], choices: [], affordable };
      const answer = await this.model.choose({
        entityId: job.entityId,
        candidates: candidates.slice(0, affordable),
        neighbours: neighbours.slice(0, affordable),
      });
      return { ...answer, neighbours, affordable };
    });
    const affordable = chosen.affordable ?? candidates.length;
    const consolidation = consolidate({
      entityId: job.entityId,
      jobId: job.jobId,
      conversationId: job.conversationId,
      runId: job.runId,
      messageIds: messages.map((message) => message.id),
      now: job.observedAt,
      observedAt: job.observedAt,
      candidates,
      choices: chosen.choices,
      neighbours: distinctMemories(chosen.neighbours.flat()),
      maxCandidates: Math.min(maxCandidates, affordable),
      ...(affordable < candidates.length
        ? {
            capReason: `${OVER_BUDGET} of ${this.settings.maxJobTokens ?? DEFAULT_MAX_JOB_TOKENS} (formation.maxJobTokens)`,
          }
        : {}),
      kinds,
    });
    const usage = sumUsage(extracted.usage, chosen.usage);
    const recordOf = (operations: Consolidation['operations']): FormationJobRecord => ({
      jobId: job.jobId,
      conversationId: job.conversationId,
      runId: job.runId,
      model: this.model.id,
      operations,
      at: job.observedAt,
      usage,
    });
    // What the job closes, and the room it takes, are checked and written with no other write of
    // the entity between.
    let record = recordOf(consolidation.operations);
    const written = await this.memories.locked(job.entityId, async () => {
      const capped = consolidation.operations.some((operation) => operation.op === 'ADD')
        ? withinCap(
            consolidation,
            await tallyActive(this.memories, job.entityId, job.observedAt, consolidation),
            this.settings.maxActive ?? DEFAULT_ACTIVE_MEMORY_CAP,
          )
        : consolidation;
      record = recordOf(capped.operations);
      // Still this job's entity, in every process: a lease lost meanwhile stops it (it retries).
      await lease?.assertHeld();
      // The profile's patch once the memories are written, before the job's record: a job whose
      // record exists wrote it too, a refused job did not.
      return this.memories.write(
        job.entityId,
        { seq: job.seq, at: job.observedAt },
        capped,
        record,
        () => this.patchProfile(job, extracted),
      );
    });
    return { status: written ? 'written' : 'refused', record, usage };
  }

  /** Applies the extraction's profile patch at the job's seq; what it did, for the job's record. */
  private async patchProfile(
    job: FormationJob,
    extracted: ExtractionAnswer,
  ): Promise<Pick<FormationJobRecord, 'profile'>> {
    const patch = extracted.profilePatch;
    if (!this.profiles || !patch || Object.keys(patch).length === 0) return {};
    const outcome = await this.profiles.apply(
      job.entityId,
      patch,
      { seq: job.seq, at: job.observedAt },
      { origin: 'formation', runId: job.runId, jobId: job.jobId },
    );
    const members = patchedPaths(patch);
    return {
      profile:
        outcome.status === 'refused'
          ? { status: 'refused', members, reason: outcome.reason }
          : { status: outcome.status, members, version: outcome.profile?.version },
    };
  }
}
