import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';

/** A queued run: what every attempt needs, fixed when the run was created. */
export interface AgentRunJob {
  runId: string;
  conversationId: string;
  entityId?: string;
  /** The user message, its id already `runId:0`. */
  message: ChatMessage;
  /** The run's long-term `seq`, taken from the entity's counter when the run was created. */
  seq?: number;
}

/** Where an attempt stands among the run's attempts. */
export interface JobAttempt {
  /** 1 for the first attempt. */
  number: number;
  /** True if no retry follows a failure of this attempt. */
  last: boolean;
}

/** Processes one attempt of a job; throwing fails the attempt. */
export type AgentJobHandler = (job: AgentRunJob, attempt: JobAttempt) => Promise<void>;

/**
 * The queue port of the agent's async runs: an in-process driver and a Bull one. A driver runs the
 * jobs of one conversation one at a time, in submission order, and retries failed attempts with
 * exponential backoff unless `isFinal(error)`.
 */
export interface AgentQueue {
  /** Whether a queued job outlives this process (Bull: yes; in-process: no). */
  readonly durable: boolean;
  start(handler: AgentJobHandler, isFinal: (error: unknown) => boolean): Promise<void>;
  submit(job: AgentRunJob): Promise<void>;
  close(): Promise<void>;
}

/** Retry settings shared by the drivers (5 attempts from 1 s). */
export interface QueueRetryOptions {
  /** Attempts per run, the first included (default 5; `AGENT_RUN_ATTEMPTS`). */
  attempts?: number;
  /** First backoff; doubles per attempt (default 1,000 ms). */
  backoffMs?: number;
}

export const DEFAULT_RUN_ATTEMPTS = 5;
export const DEFAULT_RUN_BACKOFF_MS = 1_000;
