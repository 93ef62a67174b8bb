import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AgentJobHandler,
  type AgentQueue,
  type AgentRunJob,
  DEFAULT_RUN_ATTEMPTS,
  DEFAULT_RUN_BACKOFF_MS,
  type QueueRetryOptions,
} from './agent-queue.interface.js';
import { KeyedSerial } from '../../../common/keyed-serial.js';

/**
 * The in-process queue driver: runs jobs in this process, one conversation at a time in submission
 * order (a promise chain per conversation), with retries and exponential backoff. Not durable: a
 * job still queued when the process stops is lost (its record stays `queued`). Ordering holds within
 * one process only; use the Bull driver across processes.
 */
export class InlineAgentQueue implements AgentQueue {
  readonly durable = false;
  private readonly logger = new Logger('InlineAgentQueue');
  /** Each conversation's jobs, one at a time, in order. */
  private readonly conversations = new KeyedSerial();
  private readonly stopping = new AbortController();
  private handler?: AgentJobHandler;
  private isFinal: (error: unknown) => boolean = () => false;

  constructor(private readonly options: QueueRetryOptions = {}) {}

  async start(handler: AgentJobHandler, isFinal: (error: unknown) => boolean): Promise<void> {
    this.handler = handler;
    this.isFinal = isFinal;
  }

  async submit(job: AgentRunJob): Promise<void> {
    if (!this.handler) throw new Error('InlineAgentQueue.submit before start');
    void this.conversations.run(job.conversationId, () => this.process(job));
  }

  /** Stops retrying (waits cut short) and waits for the attempts in progress. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.conversations.idle();
  }

  private async process(job: AgentRunJob): Promise<void> {
    const attempts = this.options.attempts ?? DEFAULT_RUN_ATTEMPTS;
    for (let number = 1; number <= attempts; number += 1) {
      const last = number === attempts;
      try {
        await this.handler!(job, { number, last });
        return;
      } catch (error) {
        if (last || this.isFinal(error) || this.stopping.signal.aborted) return;
        const delay = (this.options.backoffMs ?? DEFAULT_RUN_BACKOFF_MS) * 2 ** (number - 1);
        this.logger.debug(
          `Run ${job.runId} attempt ${number} failed; retrying in ${delay} ms: ${String(error)}`,
        );
        try {
          await sleep(delay, undefined, { signal: this.stopping.signal });
        } catch {
          return;
        }
      }
    }
  }
}
