import { createHash } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AgentJobHandler,
  type AgentQueue,
  type AgentRunJob,
  DEFAULT_RUN_ATTEMPTS,
  DEFAULT_RUN_BACKOFF_MS,
  type QueueRetryOptions,
} from './agent-queue.interface.js';
import type { ConversationSequencer } from './conversation-sequencer.js';
import { guardBullWorkerName } from '../../connections/redis/bull-worker-name.js';
import { DEFAULT_RUN_LEASE_MS } from '../runs/run-records.js';

/** Settings of the Bull driver. */
export interface BullAgentQueueSettings extends QueueRetryOptions {
  /** Jobs processed at once by this instance (default 4). */
  concurrency?: number;
  /** Conversation lease TTL; renewed at a third of it while a run goes (default: the agent's `runLeaseMs`, 10 s). */
  leaseMs?: number;
  /** Process jobs in this instance (default true; false for a producer-only instance). */
  worker?: boolean;
  /**
   * How long a job may hold its worker slot waiting for its conversation's turn before it is parked
   * as a delayed job (default 0: parked at once, so waiting costs no slot).
   */
  waitForTurnMs?: number;
  /**
   * Longest delay of a parked job before it looks at its conversation again (default 5 s). The
   * delay starts at 250 ms and doubles; the run ahead of it wakes it as soon as it settles, so this
   * bounds only how long a missed wake-up (its worker died) can delay the conversation.
   */
  maxParkDelayMs?: number;
}

/**
 * What the driver needs to know about a run that heads a conversation's order: settled; abandoned
 * (its holder died); queued (a queue holds it: it should have a job); live (held under a lease).
 */
export type HeadRunState = 'settled' | 'abandoned' | 'queued' | 'live';

/** What the driver reads and writes of the runs heading conversations' orders. */
export interface HeadRuns {
  state(runId: string): Promise<HeadRunState>;
  /** Records a run whose job is gone as failed (unless it settled or is held meanwhile). */
  lost(runId: string, conversationId: string): Promise<void>;
}

/** First delay of a parked job. */
const FIRST_PARK_DELAY_MS = 250;
/** Default longest delay of a parked job. */
export const DEFAULT_MAX_PARK_DELAY_MS = 5_000;
/** Heads evicted at most by one attempt before it parks (each eviction is one settled run). */
const MAX_EVICTIONS_PER_ATTEMPT = 16;

/** What a deferred copy of a job carries besides the job. */
interface QueuedJob extends AgentRunJob {
  /** Attempts used by earlier copies of this run's job. */
  attemptsUsed?: number;
  /** How many times the run was deferred because its conversation was busy. */
  deferrals?: number;
}

/**
 * The Bull driver (a `bull` Queue, as `@nestjs/bull` provides). Jobs retry with exponential backoff;
 * final errors are discarded (no retry). A job whose conversation is busy is not failed and holds no
 * worker slot: it is parked as a delayed copy (same run, attempts carried over; the delay doubles up
 * to `maxParkDelayMs`), and the run ahead of it promotes that copy the moment it settles. A head of
 * the order that settled, or that nobody will run (its submitter died before the queue had it), is
 * evicted by the next job of the conversation. A worker killed mid-run leaves a stalled job that Bull
 * hands to another worker once its lock expires, and a lease that expires with it; the run cache and
 * message ids make the second attempt converge on the same stored turn.
 */
export class BullAgentQueue implements AgentQueue {
  readonly durable = true;
  private readonly logger = new Logger('BullAgentQueue');
  private handler?: AgentJobHandler;
  private isFinal: (error: unknown) => boolean = () => false;
  private closed = false;

  /** The Bull queue runs go through (for dashboards and health checks). */
  get bull(): Queue {
    return this.queue;
  }

  constructor(
    private readonly queue: Queue,
    private readonly sequencer: ConversationSequencer,
    private readonly heads: HeadRuns,
    private readonly settings: BullAgentQueueSettings = {},
  ) {}

  async start(handler: AgentJobHandler, isFinal: (error: unknown) => boolean): Promise<void> {
    this.handler = handler;
    this.isFinal = isFinal;
    if (this.settings.worker === false) return;
    guardBullWorkerName(this.queue); // a queue of the app's own, too
    void this.queue.process(this.settings.concurrency ?? 4, (job) => this.process(job));
  }

  async submit(job: AgentRunJob): Promise<void> {
    await this.sequencer.join(job.conversationId, job.runId);
    await this.queue.add(job, this.jobOptions(bullJobId(job.runId), this.attempts));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.close();
  }

  private get attempts(): number {
    return this.settings.attempts ?? DEFAULT_RUN_ATTEMPTS;
  }

  private jobOptions(jobId: string, attempts: number, delay?: number) {
    return {
      jobId,
      attempts,
      delay,
      backoff: { type: 'exponential', delay: this.settings.backoffMs ?? DEFAULT_RUN_BACKOFF_MS },
      removeOnComplete: true,
      removeOnFail: 1_000,
    };
  }

  private async process(job: Job<QueuedJob>): Promise<string> {
    const data = job.data;
    const leaseMs = this.settings.leaseMs ?? DEFAULT_RUN_LEASE_MS;
    if (!(await this.waitForTurn(data, leaseMs))) return this.park(job);
    const renew = setInterval(
      () =>
        void this.sequencer.renew(data.conversationId, data.runId, leaseMs).then(
          (renewed) => {
            // Another run holds the conversation now (this one's lease ran out): say so once it shows.
            if (!renewed)
              this.logger.warn(
                `Conversation lease of run ${data.runId} was lost: another run of ${data.conversationId} may go beside it`,
              );
          },
          (error: unknown) =>
            this.logger.warn(
              `Conversation lease of run ${data.runId} not renewed: ${(error as Error).message}`,
            ),
        ),
      leaseMs / 3,
    );
    const number = (data.attemptsUsed ?? 0) + job.attemptsMade + 1;
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    let settled = false;
    try {
      await this.handler!(
        {
          runId: data.runId,
          conversationId: data.conversationId,
          entityId: data.entityId,
          message: data.message,
          seq: data.seq,
        },
        { number, last },
      );
      settled = true;
      return 'completed';
    } catch (error) {
      settled = last || this.isFinal(error);
      if (settled && !last) job.discard();
      throw error;
    } finally {
      clearInterval(renew);
      const head = await this.sequencer.release(data.conversationId, data.runId, settled);
      if (settled && head !== undefined) await this.wake(data.conversationId, head);
    }
  }

  /**
   * Takes the conversation's turn if it is this run's; evicts heads that settled or that nobody will
   * run. Waits only up to `waitForTurnMs` (default: not at all).
   */
  private async waitForTurn(data: QueuedJob, leaseMs: number): Promise<boolean> {
    const deadline = Date.now() + (this.settings.waitForTurnMs ?? 0);
    for (let evictions = 0; ;) {
      const outcome = await this.sequencer.tryAcquire(data.conversationId, data.runId, leaseMs);
      if (outcome.acquired) return true;
      const head = outcome.blockedBy;
      if (
        head !== data.runId &&
        evictions < MAX_EVICTIONS_PER_ATTEMPT &&
        (await this.evictIfDead(data.conversationId, head))
      ) {
        evictions += 1;
        continue;
      }
      if (Date.now() >= deadline || this.closed) return false;
      await sleep(50);
    }
  }

  /**
   * Evicts a head that settled, or that nobody holds and that has no job in the queue (its submitter
   * died before adding it, or the queue lost it: a Redis without persistence restarted), recording
   * the latter `failed`. Resolves whether the head is gone.
   */
  private async evictIfDead(conversationId: string, runId: string): Promise<boolean> {
    const state = await this.heads.state(runId);
    if (state === 'live') return false;
    if (state !== 'settled') {
      const parked = await this.sequencer.parkedJob(conversationId, runId);
      const jobs = [bullJobId(runId), ...(parked ? [parked] : [])];
      for (const jobId of jobs) if (await this.jobPending(jobId)) return false;
    }
    if (!(await this.sequencer.evict(conversationId, runId))) return false;
    if (state !== 'settled') {
      this.logger.warn(`Run ${runId} headed its conversation without a job: evicted (${state})`);
      await this.heads.lost(runId, conversationId);
    }
    return true;
  }

  private async jobPending(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    return state === 'waiting' || state === 'active' || state === 'delayed' || state === 'paused';
  }

  /**
   * Parks the run as a delayed copy of its job (attempts carried over) and notes it, so the run ahead
   * wakes it when it settles; this copy completes.
   */
  private async park(job: Job<QueuedJob>): Promise<string> {
    const deferrals = (job.data.deferrals ?? 0) + 1;
    const attemptsUsed = (job.data.attemptsUsed ?? 0) + job.attemptsMade;
    const remaining = Math.max(1, this.attempts - attemptsUsed);
    const delay = Math.min(
      FIRST_PARK_DELAY_MS * 2 ** Math.min(deferrals - 1, 20),
      this.settings.maxParkDelayMs ?? DEFAULT_MAX_PARK_DELAY_MS,
    );
    const jobId = `${bullJobId(job.data.runId)}:parked:${deferrals}`;
    // The copy first, then its note: while the copy is being made, this job is still active.
    await this.queue.add(
      { ...job.data, deferrals, attemptsUsed },
      this.jobOptions(jobId, remaining, delay),
    );
    await this.sequencer.park(job.data.conversationId, job.data.runId, jobId);
    this.logger.debug(`Run ${job.data.runId} waits for its conversation; parked (${deferrals})`);
    // The head may have settled between the look and the park: wake the copy if it is now first.
    const head = await this.sequencer.release(job.data.conversationId, job.data.runId, false);
    if (head === job.data.runId) await this.wake(job.data.conversationId, head);
    return 'parked';
  }

  /** Promotes the parked job of the run now heading the conversation (best effort: it wakes anyway). */
  private async wake(conversationId: string, runId: string): Promise<void> {
    try {
      const jobId = await this.sequencer.parkedJob(conversationId, runId);
      const job = jobId ? await this.queue.getJob(jobId) : null;
      if (job && (await job.isDelayed())) await job.promote();
    } catch (error) {
      this.logger.debug(`Run ${runId} not woken (its delay runs out): ${String(error)}`);
    }
  }
}

/**
 * The Bull job id of a run: `run:` and a digest of the run id. Bull builds a job's key as the queue
 * prefix plus the job id, so a raw run id such as `wait` or `active` would write over the queue's
 * own lists; no derived id can.
 */
export function bullJobId(runId: string): string {
  return `run:${createHash('sha256').update(runId).digest('base64url').slice(0, 22)}`;
}
