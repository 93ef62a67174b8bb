import { Logger } from '@nestjs/common';
import type { AgentRunJob } from '../queue/agent-queue.interface.js';
import type { RunRecords } from './run-records.js';
import type { RunStore } from './run-store.interface.js';

/**
 * The run store's entry list of the in-process queue's jobs not yet settled (run id → the job and
 * when it was queued). `#` keeps it apart from every run id.
 */
export const INLINE_PENDING = '#q:inline';

/** A job as noted: what the queue was given, and when. */
interface NotedJob extends AgentRunJob {
  queuedAt: number;
}

/**
 * What keeps the in-process queue's acknowledged runs from being lost with their process: each job
 * is noted in the run store when it is queued and forgotten once its run settles. `recover` finds
 * the noted jobs whose holder is gone (its lease ran out: the process died or stopped before they
 * ran) and queues them again here, oldest first, each taken over by exactly one process; a run that
 * settled meanwhile is only forgotten. Run at start and then every `everyMs`.
 */
export class InlineRunRecovery {
  private readonly logger = new Logger('AgentRuns');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly store: RunStore,
    private readonly records: RunRecords,
    private readonly owner: string,
    private readonly requeue: (job: AgentRunJob) => Promise<void>,
  ) {}

  /** Notes a job handed to the in-process queue (before its submitter is answered). */
  note(job: AgentRunJob): Promise<void> {
    const noted: NotedJob = { ...job, queuedAt: Date.now() };
    return this.store.put(INLINE_PENDING, job.runId, JSON.stringify(noted));
  }

  /** Its run settled: the job is not needed again. Best effort (a leftover is forgotten by `recover`). */
  async forget(runId: string): Promise<void> {
    try {
      await this.store.removeEntry(INLINE_PENDING, runId);
    } catch (error) {
      this.logger.warn(`Queued job of run ${runId} not forgotten: ${(error as Error).message}`);
    }
  }

  /** Queues again the noted jobs whose holder is gone; resolves how many. One pass at a time. */
  recover(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Recovers now, then every `everyMs` (an unref'd timer) until `stop`. */
  async start(everyMs: number): Promise<void> {
    await this.recover().catch((error: Error) =>
      this.logger.error(`Queued runs not recovered: ${error.message}`),
    );
    this.timer = setInterval(() => {
      this.recover().catch((error: Error) =>
        this.logger.warn(`Queued runs not recovered: ${error.message}`),
      );
    }, everyMs).unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<number> {
    const jobs: NotedJob[] = [];
    for (const [runId, json] of await this.store.entries(INLINE_PENDING)) {
      try {
        jobs.push(JSON.parse(json) as NotedJob);
      } catch {
        await this.forget(runId); // not a job this version wrote: nothing to run
      }
    }
    jobs.sort((a, b) => a.queuedAt - b.queuedAt || (a.runId < b.runId ? -1 : 1));
    let requeued = 0;
    // A conversation whose earlier job another process holds (or this pass could not take) keeps
    // its later jobs waiting: they are never run beside or before it.
    const blocked = new Set<string>();
    for (const noted of jobs) {
      const state = await this.records.headState(noted.runId);
      if (state === 'settled') {
        // A record not written yet (its submitter writes it with the note) is not a settled run.
        const young = Date.now() - noted.queuedAt < this.records.lease;
        if (!young || (await this.records.get(noted.runId))) await this.forget(noted.runId);
        else blocked.add(noted.conversationId);
        continue;
      }
      if (blocked.has(noted.conversationId)) continue;
      if (state !== 'abandoned') {
        blocked.add(noted.conversationId);
        continue;
      }
      if (!(await this.records.takeOver(noted.runId, noted.conversationId, this.owner))) {
        blocked.add(noted.conversationId);
        continue;
      }
      await this.requeue(jobOf(noted));
      requeued += 1;
    }
    if (requeued > 0) this.logger.log(`Queued again ${requeued} run(s) whose process was gone`);
    return requeued;
  }
}

/** The job as the queue takes it (without the note's time). */
function jobOf(noted: NotedJob): AgentRunJob {
  return {
    runId: noted.runId,
    conversationId: noted.conversationId,
    message: noted.message,
    ...(noted.entityId === undefined ? {} : { entityId: noted.entityId }),
    ...(noted.seq === undefined ? {} : { seq: noted.seq }),
  };
}
