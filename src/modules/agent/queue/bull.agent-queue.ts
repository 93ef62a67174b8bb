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

/** Settings of the Bull driver. */
export interface BullAgentQueueSettings extends QueueRetryOptions {
  /** Jobs processed at once by this instance (default 4). */
  concurrency?: number;
  /** Conversation lease TTL; renewed at a third of it while a run goes (default 30 s). */
  leaseMs?: number;
  /** Process jobs in this instance (default true; false for a producer-only instance). */
  worker?: boolean;
  /** How long a job waits for its conversation's turn before it is re-queued with a delay (default 1 s). */
  waitForTurnMs?: number;
}

/** What a deferred copy of a job carries besides the job. */
interface QueuedJob extends AgentRunJob {
  /** Attempts used by earlier copies of this run's job. */
  attemptsUsed?: number;
  /** How many times the run was deferred because its conversation was busy. */
  deferrals?: number;
}

/**
 * The Bull driver (a `bull` Queue, as `@nestjs/bull` provides). Jobs retry with exponential backoff;
 * final errors are discarded (no retry). A job whose conversation is busy is not failed: it waits a
 * moment for its turn, then is re-queued as a delayed copy (same run, attempts carried over). A
 * worker killed mid-run leaves a stalled job that Bull hands to another worker once its lock
 * expires, and a lease that expires with it; the run cache and message ids make the second attempt
 * converge on the same stored turn.
 */
export class BullAgentQueue implements AgentQueue {
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
    private readonly isSettled: (runId: string) => Promise<boolean>,
    private readonly settings: BullAgentQueueSettings = {},
  ) {}

  async start(handler: AgentJobHandler, isFinal: (error: unknown) => boolean): Promise<void> {
    this.handler = handler;
    this.isFinal = isFinal;
    if (this.settings.worker === false) return;
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
    const leaseMs = this.settings.leaseMs ?? 30_000;
    if (!(await this.waitForTurn(data, leaseMs))) return this.defer(job);
    const renew = setInterval(
      () => void this.sequencer.renew(data.conversationId, data.runId, leaseMs),
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
      await this.sequencer.release(data.conversationId, data.runId, settled);
    }
  }

  /** Waits for the conversation's turn; evicts a head that has settled (e.g. a worker died after it). */
  private async waitForTurn(data: QueuedJob, leaseMs: number): Promise<boolean> {
    const deadline = Date.now() + (this.settings.waitForTurnMs ?? 1_000);
    for (;;) {
      const outcome = await this.sequencer.tryAcquire(data.conversationId, data.runId, leaseMs);
      if (outcome.acquired) return true;
      if (outcome.blockedBy !== data.runId && (await this.isSettled(outcome.blockedBy))) {
        await this.sequencer.evict(data.conversationId, outcome.blockedBy);
        continue;
      }
      if (Date.now() >= deadline || this.closed) return false;
      await sleep(50);
    }
  }

  /** Re-queues the run with a short delay, carrying its attempts; this copy completes. */
  private async defer(job: Job<QueuedJob>): Promise<string> {
    const deferrals = (job.data.deferrals ?? 0) + 1;
    const attemptsUsed = (job.data.attemptsUsed ?? 0) + job.attemptsMade;
    const remaining = Math.max(1, this.attempts - attemptsUsed);
    await this.queue.add(
      { ...job.data, deferrals, attemptsUsed },
      this.jobOptions(`${bullJobId(job.data.runId)}:deferred:${deferrals}`, remaining, 250),
    );
    this.logger.debug(`Run ${job.data.runId} waits for its conversation; deferred (${deferrals})`);
    return 'deferred';
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
