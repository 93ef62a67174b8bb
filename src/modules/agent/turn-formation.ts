import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { contentText } from '../../common/messages/content-parts.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import type {
  FormationMessage,
  MemoryFormationModel,
} from '../formation/formation-model.interface.js';
import { OVER_CAP } from '../formation/active-memory-cap.js';
import type { ResolvedFormation } from '../formation/formation.options.js';
import type { AppliedOperation } from '../formation/formed-memory.interface.js';
import { FormedMemories } from '../formation/formed-memories.js';
import { type FormationJob, MemoryFormation, withinBudget } from '../formation/memory-formation.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { words } from '../longterm/recall/search-text.js';
import { FORMATION_VERSION, reservedFormation } from './formation-reservation.js';
import type { AgentRunResult } from './interfaces/agent-run.interface.js';
import type { ReplayCache } from './runs/replay-cache.js';

/** Wait before the second attempt; each later one waits four times longer, at most a minute. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** Why a job stops when the app shuts down. */
const SHUTTING_DOWN = 'the app shut down before the job ran';
/** Why a job's write was refused. */
const REFUSED =
  'a memory this job would close changed since it read it (a correction, a later job), or the entity was erased';

/** What running a failed job again did. */
export type FormationRerun =
  | { status: 'written' | 'already-written'; operations: AppliedOperation[] }
  | { status: 'failed' | 'not-rerunnable'; error: string; errorName?: string };

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
  /** Jobs running now, and those waiting for a slot (in order). */
  private running = 0;
  private readonly waiting: Array<(handedOver: boolean) => void> = [];
  /** The entity's formed memories (what the recall block and the HTTP routes read). */
  readonly memories: FormedMemories;

  constructor(
    private readonly longterm: LongtermMemoryService,
    private readonly cache: ReplayCache,
    model: MemoryFormationModel,
    private readonly resolved: ResolvedFormation,
  ) {
    this.memories = new FormedMemories(longterm);
    this.formation = new MemoryFormation(
      this.memories,
      model,
      async (job, step, compute) =>
        (await cache.step(job.runId, `${FORMATION_VERSION}:${step}`, compute)).value,
      resolved.settings,
    );
  }

  /** A turn committed: forms memories of its entity in the background (never throws). */
  afterCommit(turn: { entityId?: string; conversationId: string; result: AgentRunResult }): void {
    const { entityId, conversationId, result } = turn;
    if (!entityId || !this.longterm.enabled) return;
    const work = this.formTurn(entityId, conversationId, result)
      .catch((error: unknown) =>
        this.logger.warn(
          `Memory formation of run ${result.runId} failed: ${(error as Error).message}`,
        ),
      )
      .finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  /**
   * Resolves once the jobs begun are done (at shutdown, before the stores close): a job running
   * ends its attempt; jobs waiting for a slot or a retry start no new one and are noted as failed.
   */
  async settle(): Promise<void> {
    this.stopped.abort();
    for (const wake of this.waiting.splice(0)) wake(false);
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async formTurn(entityId: string, conversationId: string, result: AgentRunResult) {
    const messages = formationMessages(result.messages);
    if (!messages.some((message) => message.role === 'user')) return;
    const reserved = await reservedFormation(this.cache, result.runId);
    if (!reserved) return; // the entity was erased while the turn ran (or its records expired)
    const job: FormationJob = {
      jobId: `${result.runId}/${FORMATION_VERSION}`,
      entityId,
      conversationId,
      runId: result.runId,
      // Held while the job waits: no more of the turn than the extraction will read.
      messages: withinBudget(messages, this.resolved.settings.maxInputTokens * 4),
      context: [],
      observedAt: reserved.at,
      seq: reserved.seq,
    };
    const note = (error: string, attempts: number, errorName = 'FormationRefusedError') =>
      this.memories.recordFailure(entityId, job, { error, errorName, attempts }).then(() => {
        throw new Error(error);
      });
    // Past `maxPending` (running, waiting or between attempts), the job is noted, not queued.
    if (this.pending.size > this.resolved.maxPending)
      return note(`${this.resolved.maxPending} formation jobs were pending in this process`, 0);
    for (let attempt = 1; ; attempt += 1) {
      if (this.stopped.signal.aborted) return note(SHUTTING_DOWN, attempt - 1);
      let outcome: Awaited<ReturnType<MemoryFormation['run']>> | undefined;
      try {
        outcome = await this.inSlot(() => this.formation.run(job));
      } catch (error) {
        if (attempt >= this.resolved.attempts)
          return note((error as Error).message, attempt, (error as Error).name);
        const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 4 ** (attempt - 1));
        await sleep(wait, undefined, { signal: this.stopped.signal }).catch(() => undefined);
        continue;
      }
      if (outcome === undefined) return note(SHUTTING_DOWN, attempt - 1);
      if (outcome.status === 'refused') return note(REFUSED, attempt);
      const full = outcome.record.operations.filter((op) => op.overruled?.endsWith(OVER_CAP));
      if (outcome.status === 'written' && full.length > 0)
        this.logger.warn(
          `Memory formation of run ${result.runId} added ${full.length} memory(ies) less: ${full[0]!.overruled}`,
        );
      return;
    }
  }

  /**
   * Runs a failed job again, now, one attempt (in a slot, like any job): the note of the turn's run
   * `runId` names it. `null` when the entity has no such note. Written (or found written): the note
   * is removed; failed or refused again: the note is kept, with the new error and one more
   * attempt. The job writes at a new seq (erasure still wins) and at the time of the turn.
   */
  async rerun(entityId: string, runId: string): Promise<FormationRerun | null> {
    const jobId = `${runId}/${FORMATION_VERSION}`;
    const failed = await this.memories.failed.get(entityId, jobId);
    if (!failed) return null;
    if (!failed.messages?.length)
      return { status: 'not-rerunnable', error: 'the note was kept without the turn it read' };
    const job: FormationJob = {
      jobId,
      entityId,
      conversationId: failed.conversationId,
      runId,
      messages: failed.messages,
      context: [],
      observedAt: failed.at,
      seq: await this.memories.nextSeq(entityId),
    };
    const again = async (error: string, errorName?: string) => {
      const named = errorName ? { errorName } : {};
      await this.memories.recordFailure(entityId, job, {
        error,
        ...named,
        attempts: failed.attempts + 1,
      });
      return { status: 'failed' as const, error, ...named };
    };
    let outcome: Awaited<ReturnType<MemoryFormation['run']>> | undefined;
    try {
      outcome = await this.inSlot(() => this.formation.run(job));
    } catch (error) {
      return again((error as Error).message, (error as Error).name);
    }
    if (outcome === undefined) return again(SHUTTING_DOWN);
    if (outcome.status === 'refused') return again(REFUSED, 'FormationRefusedError');
    await this.memories.failed.clear(entityId, jobId, job.seq);
    return { status: outcome.status, operations: outcome.record.operations };
  }

  /**
   * Runs `work` in a slot (at most `concurrency` at once, in arrival order; a freed slot goes
   * straight to the next waiter); `undefined` when the app shut down while it waited.
   */
  private async inSlot<T>(work: () => Promise<T>): Promise<T | undefined> {
    if (this.running < this.resolved.concurrency) this.running += 1;
    else if (!(await new Promise<boolean>((resolve) => this.waiting.push(resolve))))
      return undefined; // woken by the shutdown, holding no slot
    try {
      if (this.stopped.signal.aborted) return undefined;
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next(true);
      else this.running -= 1;
    }
  }
}

/** A turn's user and assistant messages that hold a word, as a formation job reads them. */
export function formationMessages(messages: readonly ChatMessage[]): FormationMessage[] {
  return messages.flatMap((message) => {
    const text = contentText(message.content);
    return (message.role === 'user' || message.role === 'assistant') &&
      message.id &&
      words(text).length > 0
      ? [{ id: message.id, role: message.role, text }]
      : [];
  });
}
