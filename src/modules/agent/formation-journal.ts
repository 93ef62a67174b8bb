import { Logger } from '@nestjs/common';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import type { AgentRuns } from './agent.providers.js';
import type { AgentRunStatus } from './interfaces/agent-run.interface.js';
import type { RunStore } from './runs/run-store.interface.js';
import { RunStoreLeases } from './runs/run-store-leases.js';
import type { EntityLeases } from '../formation/entity-leases.js';

/**
 * The run store's entry list of formation jobs not yet done (run id → the job, its holder and when
 * it was noted). `#` keeps it apart from every run id.
 */
export const FORMATION_PENDING = '#q:formation';
/**
 * The holders of noted jobs, each with the last time it said it was alive (ms); a dead one's entry
 * goes with the run store's retention.
 */
const HOLDERS = '#q:formation-holders';

/** A turn's formation job as it is noted: what the job reads, without its seq and time. */
export interface JournaledFormation {
  runId: string;
  entityId: string;
  conversationId: string;
  /** The turn's messages, as the job reads them (within `maxInputTokens`). */
  messages: FormationMessage[];
  /** The conversation's version before the turn's messages: its context is read up to there. */
  before?: number;
}

interface Note extends JournaledFormation {
  holder: string;
  notedAt: number;
}

/** What a recovery pass asks of the runs: the state of a job's run (`undefined`: no record). */
export type RunStatusOf = (runId: string) => Promise<AgentRunStatus | undefined>;

/**
 * What keeps a turn's formation job from being lost with its process: the job is noted in the run
 * store once its turn committed, before its run is recorded completed, and forgotten once it is
 * done (written, or noted as failed). A process that holds or took a job says it is alive every
 * third of the lease. A recovery pass (at start, then every lease) takes over, one process per
 * take (compare-and-set on the note), the jobs whose holder has been silent for a lease, and hands
 * them to `run`; a job whose run's records are gone (its entity erased, or expired) is forgotten.
 */
export class FormationJournal {
  private readonly logger = new Logger('Agent');
  private beating?: NodeJS.Timeout;
  private recovering?: NodeJS.Timeout;
  private pass?: Promise<number>;
  private alive?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly store: RunStore,
    /** This process's token (its run lease owner). */
    private readonly holder: string,
    private readonly leaseMs: number,
    private readonly runStatus: RunStatusOf,
  ) {}

  /** Notes a job held by this process (its run not yet recorded completed). */
  async note(job: JournaledFormation): Promise<void> {
    // A holder is alive before any job names it: a pass never takes a job noted a moment ago.
    await this.sayAlive();
    const note: Note = { ...job, holder: this.holder, notedAt: Date.now() };
    await this.store.put(FORMATION_PENDING, job.runId, JSON.stringify(note));
  }

  /** The job is done (written or noted as failed): it is not run again. Best effort. */
  async forget(runId: string): Promise<void> {
    try {
      await this.store.removeEntry(FORMATION_PENDING, runId);
    } catch (error) {
      this.logger.warn(`Formation job of run ${runId} not forgotten: ${(error as Error).message}`);
    }
  }

  /**
   * Recovers now, then every lease (an unref'd timer) until `stopRecovering`: each job taken over
   * goes to `run`, which is not awaited by the pass; a pass takes no job `hasRoom` says no to.
   */
  async start(
    run: (job: JournaledFormation) => void,
    hasRoom: (job: JournaledFormation) => boolean,
  ): Promise<void> {
    const recover = () =>
      this.recover(run, hasRoom).catch((error: Error) =>
        this.logger.warn(`Formation jobs not recovered: ${error.message}`),
      );
    await recover();
    if (!this.stopped) this.recovering = setInterval(() => void recover(), this.leaseMs).unref();
  }

  /** Takes over no more jobs (at shutdown); waits for a pass under way. */
  async stopRecovering(): Promise<void> {
    clearInterval(this.recovering);
    this.recovering = undefined;
    await this.pass?.catch(() => undefined);
  }

  /**
   * Stops saying this process is alive — once its jobs are done or left (at shutdown): the jobs
   * still noted are another process's to take a lease later.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopRecovering();
    clearInterval(this.beating);
    this.beating = undefined;
  }

  /** One pass at a time: resolves how many jobs this process took over. */
  recover(
    run: (job: JournaledFormation) => void,
    hasRoom: (job: JournaledFormation) => boolean = () => true,
  ) {
    this.pass ??= this.takeOver(run, hasRoom).finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async takeOver(
    run: (job: JournaledFormation) => void,
    hasRoom: (job: JournaledFormation) => boolean,
  ): Promise<number> {
    // Before the reads: a slow read must not make a live holder look silent.
    const now = Date.now();
    const [noted, holders] = await Promise.all([
      this.store.entries(FORMATION_PENDING),
      this.store.entries(HOLDERS),
    ]);
    const lastAlive = new Map(holders.map(([holder, at]) => [holder, Number(at)]));
    // A note is a sign of life of its holder too (written after a beat that may have failed).
    const silent = (note: Note) =>
      now - Math.max(lastAlive.get(note.holder) ?? 0, note.notedAt) >= this.leaseMs;
    const notes: Array<{ runId: string; json: string; note: Note }> = [];
    for (const [runId, json] of noted) {
      const note = parseNote(json);
      if (note) notes.push({ runId, json, note });
      else await this.forget(runId); // not a job this version noted: nothing to run
    }
    notes.sort((a, b) => a.note.notedAt - b.note.notedAt);
    let taken = 0;
    for (const { runId, json, note } of notes) {
      if (this.stopped) break;
      // A job this process has no room for stays noted for another (or a later pass).
      if (note.holder === this.holder || !silent(note) || !hasRoom(jobOf(note))) continue;
      // A note is written once its turn committed: whatever its run's record says since (a retry
      // pending, a run left running, failed after the commit), the job is formed — a run that also
      // goes on elsewhere forms the same job, which the recorded answers make write the same. Only
      // a run whose records are gone (its entity erased, or expired) is not.
      if ((await this.runStatus(runId)) === undefined) {
        await this.forget(runId);
        continue;
      }
      await this.sayAlive();
      const mine: Note = { ...note, holder: this.holder, notedAt: now };
      if (!(await this.store.replaceIf(FORMATION_PENDING, runId, json, JSON.stringify(mine))))
        continue; // another process took it first
      run(jobOf(mine));
      taken += 1;
    }
    if (taken > 0) this.logger.log(`Took over ${taken} formation job(s) whose process was gone`);
    return taken;
  }

  /** Says this process is alive (once, then every third of the lease while it runs). */
  private sayAlive(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.alive ??= this.beat().catch((error: unknown) => {
      this.alive = undefined;
      throw error;
    });
    this.beating ??= setInterval(() => {
      this.beat().catch((error: Error) =>
        this.logger.warn(`Formation jobs' holder not renewed: ${error.message}`),
      );
    }, this.leaseMs / 3).unref();
    return this.alive;
  }

  private beat(): Promise<void> {
    return this.store.put(HOLDERS, this.holder, String(Date.now()));
  }
}

/** The journal of an agent's runs when their store is shared (by processes, or restarts); else none. */
export function formationJournalOf(runs: AgentRuns, holder: string): FormationJournal | undefined {
  const { store, records } = runs;
  return runs.shared
    ? new FormationJournal(
        store,
        holder,
        records.lease,
        async (runId) => (await records.get(runId))?.status,
      )
    : undefined;
}

/**
 * What formation shares with the app's other processes on a shared run store: the journal of its
 * jobs, and the entity leases its jobs and writes hold. Nothing on a run store of this process.
 */
export function formationSharingOf(
  runs: AgentRuns,
  holder: string,
): { formationJournal?: FormationJournal; entityLeases?: EntityLeases } {
  const formationJournal = formationJournalOf(runs, holder);
  return formationJournal
    ? { formationJournal, entityLeases: new RunStoreLeases(runs.store, runs.records.lease) }
    : {};
}

function parseNote(json: string): Note | undefined {
  try {
    const note = JSON.parse(json) as Partial<Note>;
    return typeof note.holder === 'string' && Array.isArray(note.messages)
      ? (note as Note)
      : undefined;
  } catch {
    return undefined;
  }
}

function jobOf(note: Note): JournaledFormation {
  const { runId, entityId, conversationId, messages, before } = note;
  return { runId, entityId, conversationId, messages, ...(before === undefined ? {} : { before }) };
}
