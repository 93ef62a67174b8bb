import { Logger } from '@nestjs/common';
import type { FormationMessage } from '../formation/formation-model.interface.js';
import type { AgentRuns } from './agent.providers.js';
import type { AgentRunStatus } from './interfaces/agent-run.interface.js';
import type { RunStore } from './runs/run-store.interface.js';

/**
 * The run store's entry list of formation jobs not yet done (run id → the job, its holder and when
 * it was noted). `#` keeps it apart from every run id.
 */
export const FORMATION_PENDING = '#q:formation';
/** The holders of noted jobs, each with the last time it said it was alive (ms). */
const HOLDERS = '#q:formation-holders';
/** A holder silent this many leases, holding no job, is forgotten. */
const FORGET_HOLDER_AFTER_LEASES = 10;

/** A turn's formation job as it is noted: what the job reads, without its seq and time. */
export interface JournaledFormation {
  runId: string;
  entityId: string;
  conversationId: string;
  /** The turn's messages, as the job reads them (within `maxInputTokens`). */
  messages: FormationMessage[];
}

interface Note extends JournaledFormation {
  holder: string;
  notedAt: number;
}

/** What a recovery pass asks of the runs: the state of a job's run (`undefined`: no record). */
export type RunStatusOf = (runId: string) => Promise<AgentRunStatus | undefined>;

/**
 * What keeps a turn's formation job from being lost with its process: the job is noted in the run
 * store before its run is recorded completed, and forgotten once it is done (written, or noted as
 * failed). The process says it is alive every third of the lease while it runs. A recovery pass
 * (at start, then every lease) takes over, one process per job (compare-and-set), the jobs whose
 * holder has been silent for a lease and whose run completed, and hands them to `run`; a job whose
 * run failed or is gone (its entity erased, its records expired) is forgotten. A job whose run is
 * still in flight waits: that run notes it again when it completes.
 */
export class FormationJournal {
  private readonly logger = new Logger('Agent');
  private beating?: NodeJS.Timeout;
  private recovering?: NodeJS.Timeout;
  private pass?: Promise<number>;
  private alive?: Promise<void>;

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
   * Recovers now, then every lease (an unref'd timer) until `stop`: each job taken over goes to
   * `run`, which is not awaited by the pass.
   */
  async start(run: (job: JournaledFormation) => void): Promise<void> {
    const recover = () =>
      this.recover(run).catch((error: Error) =>
        this.logger.warn(`Formation jobs not recovered: ${error.message}`),
      );
    await recover();
    this.recovering = setInterval(() => void recover(), this.leaseMs).unref();
  }

  /** Stops the timers and waits for a pass under way (at shutdown: the jobs left stay noted). */
  async stop(): Promise<void> {
    clearInterval(this.recovering);
    clearInterval(this.beating);
    this.recovering = this.beating = undefined;
    await this.pass?.catch(() => undefined);
  }

  /** One pass at a time: resolves how many jobs this process took over. */
  recover(run: (job: JournaledFormation) => void): Promise<number> {
    this.pass ??= this.takeOver(run).finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async takeOver(run: (job: JournaledFormation) => void): Promise<number> {
    const [noted, holders] = await Promise.all([
      this.store.entries(FORMATION_PENDING),
      this.store.entries(HOLDERS),
    ]);
    const now = Date.now();
    const lastAlive = new Map(holders.map(([holder, at]) => [holder, Number(at)]));
    const silent = (holder: string) => !(now - (lastAlive.get(holder) ?? 0) < this.leaseMs);
    const notes: Array<{ runId: string; json: string; note: Note }> = [];
    for (const [runId, json] of noted) {
      const note = parseNote(json);
      if (note) notes.push({ runId, json, note });
      else await this.forget(runId); // not a job this version noted: nothing to run
    }
    notes.sort((a, b) => a.note.notedAt - b.note.notedAt);
    let taken = 0;
    for (const { runId, json, note } of notes) {
      if (note.holder === this.holder || !silent(note.holder)) continue;
      const status = await this.runStatus(runId);
      if (status === undefined || status === 'failed') {
        await this.forget(runId);
        continue;
      }
      if (status !== 'completed') continue; // its run, when it completes, notes it again
      await this.sayAlive();
      const mine: Note = { ...note, holder: this.holder, notedAt: now };
      if (!(await this.store.replaceIf(FORMATION_PENDING, runId, json, JSON.stringify(mine))))
        continue; // another process took it first
      run(jobOf(mine));
      taken += 1;
    }
    // Holders long silent and named by no job are forgotten.
    const named = new Set(notes.map(({ note }) => note.holder));
    for (const [holder, at] of lastAlive)
      if (!named.has(holder) && now - at > FORGET_HOLDER_AFTER_LEASES * this.leaseMs)
        await this.store.removeEntry(HOLDERS, holder);
    if (taken > 0) this.logger.log(`Took over ${taken} formation job(s) whose process was gone`);
    return taken;
  }

  /** Says this process is alive (once, then every third of the lease while it runs). */
  private sayAlive(): Promise<void> {
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
  const { runId, entityId, conversationId, messages } = note;
  return { runId, entityId, conversationId, messages };
}
