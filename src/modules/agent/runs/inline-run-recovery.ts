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
    const jobs = (await this.store.entries(INLINE_PENDING))
      .map(([, json]) => JSON.parse(json) as NotedJob)
      .sort((a, b) => a.queuedAt - b.queuedAt || (a.runId < b.runId ? -1 : 1));
    let requeued = 0;
    for (const noted of jobs) {
      const job: AgentRunJob = {
        runId: noted.runId,
        conversationId: noted.conversationId,
        message: noted.message,
        ...(noted.entityId === undefined ? {} : { entityId: noted.entityId }),
        ...(noted.seq === undefined ? {} : { seq: noted.seq }),
      };
      const state = await this.records.headState(job.runId);
      if (state === 'settled') await this.forget(job.runId);
      else if (
        state === 'abandoned' &&
        (await this.records.takeOver(job.runId, job.conversationId, this.owner))
      ) {
        await this.requeue(job);
        requeued += 1;
      }
    }
    if (requeued > 0) this.logger.log(`Queued again ${requeued} run(s) whose process was gone`);
    return requeued;
  }
}
