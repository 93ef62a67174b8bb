import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { assertConversationId } from '../../common/messages/message-validation.js';
import { ATTR } from '../../common/telemetry/attributes.js';
import { inSpan } from '../../common/telemetry/spans.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { AgentRunner } from './agent-runner.js';
import type { AgentRuns } from './agent.providers.js';
import { RunBelongsToAnotherConversationError } from './errors/agent.errors.js';
import { isFinalRunError } from './errors/final-run-error.js';
import type {
  AgentRunInput,
  AgentRunResult,
  AgentRunStatus,
  AgentStreamEvent,
} from './interfaces/agent-run.interface.js';
import type { AgentQueue, AgentRunJob, JobAttempt } from './queue/agent-queue.interface.js';
import { RUN_SPAN, recordRunResult, runSpanAttributes } from './run-span.js';
import { assertRunEntityId, assertRunId } from './runs/run-id.js';
import { RunLeaseKeeper } from './runs/run-lease-keeper.js';
import type { ConversationTitler } from './conversations/conversation-titler.js';
import type { TurnFormation } from './turn-formation.js';
import type { RunSnapshot, RunTransition } from './runs/run-records.js';
import { settleRunRecord } from './runs/settle-run-record.js';
import { startAttempt } from './runs/start-attempt.js';
import { turnUserMessage } from './turn-message.js';
import { ConversationActivity } from './conversations/conversation-activity.js';
import { InlineRunRecovery } from './runs/inline-run-recovery.js';

/** What the lifecycle works with. */
export interface RunLifecycleDeps {
  runs: AgentRuns;
  queue: AgentQueue;
  runner: () => AgentRunner;
  longterm?: LongtermMemoryService;
  /** With `titles: 'model'`: titles a conversation once its first turn committed. */
  titler?: ConversationTitler;
  formation?: () => TurnFormation | undefined; // with `formation`, built with the runner
}

/**
 * The bookkeeping around a run, so that every run settles: a run is held under its owner's lease
 * from its reservation (or submission) until a final state is written; every failure path writes
 * `failed` (or `queued` while a retry is pending); a failure after the turn was committed never
 * reports `failed` (the result stands); and a run whose owner died is taken over once its lease
 * runs out.
 */
export class RunLifecycle {
  private readonly logger = new Logger('Agent');
  readonly leases: RunLeaseKeeper;
  private readonly activity: ConversationActivity;
  /** Runs held by this process while they wait in the in-process queue. */
  private readonly inlineHolds = new Map<string, () => void>();
  /** With the in-process queue: its jobs noted, and queued again when their process is gone. */
  private readonly recovery?: InlineRunRecovery;

  constructor(private readonly deps: RunLifecycleDeps) {
    this.leases = new RunLeaseKeeper(deps.runs.records);
    this.activity = new ConversationActivity(deps.runs.directory, deps.titler, deps.formation);
    if (!deps.queue.durable && deps.runs.shared)
      this.recovery = new InlineRunRecovery(
        deps.runs.store,
        deps.runs.records,
        this.leases.owner,
        (job) => this.requeue(job),
      );
  }

  /** Takes over what an earlier process left: formation jobs, and runs (in-process queue). */
  async startRecovery(): Promise<void> {
    await this.deps.formation?.()?.startRecovery();
    await this.recovery?.start(this.deps.runs.records.lease / 3);
  }

  /** Stops looking for lost runs (at shutdown). */
  async stopRecovery(): Promise<void> {
    await Promise.all([this.recovery?.stop(), this.deps.formation?.()?.stopRecovery()]);
  }

  /** A run taken over from a process that is gone: held here, and queued in this process. */
  private async requeue(job: AgentRunJob): Promise<void> {
    this.inlineHolds.set(job.runId, this.leases.hold(job.runId));
    await this.deps.queue.submit(job);
  }

  /** Reserves a run for this process (see `AgentService.reserveRun`). */
  async reserve(input: { runId: string; conversationId: string; entityId?: string }) {
    await this.deps.runs.ownership.claim(input.runId, input.conversationId, input.entityId);
    return this.leases.reserve(input.runId, input.conversationId);
  }

  /** Runs a turn now, to its commit; resolves a completed run's recorded result. */
  async execute(
    input: AgentRunInput,
    onEvent?: (event: AgentStreamEvent) => void,
  ): Promise<AgentRunResult> {
    const runner = this.deps.runner();
    const { records, ownership } = this.deps.runs;
    const runId = input.runId ?? randomUUID();
    const { conversationId } = input;
    assertConversationId(conversationId);
    assertRunId(runId);
    assertRunEntityId(input.entityId);
    const release = this.leases.hold(runId);
    let result: AgentRunResult;
    // What this execution knows of the run's record: its writes compare against it (one read less).
    let known: RunSnapshot = {};
    try {
      // Before anything is read: a run id of another conversation must not hand out its result.
      // A new run's first record is stored with its claim (one commit less).
      const initial = records.firstAttempt(runId, conversationId, this.leases.owner);
      known = await ownership.claim(runId, conversationId, input.entityId, initial);
      const previous = await records.get(runId, known);
      if (previous?.status === 'completed' && previous.result) return previous.result;
      result = await inSpan(
        RUN_SPAN,
        () => runSpanAttributes({ ...input, runId }),
        async (span) => {
          const { owner } = this.leases;
          const started = await startAttempt(records, { runId, conversationId, owner }, known);
          span.setAttribute(ATTR.attempt, started.attempts);
          try {
            const committed = await runner.run({ ...input, runId }, onEvent, started.first);
            recordRunResult(span, committed);
            return committed;
          } catch (error) {
            span.setAttribute(ATTR.outcome, 'failed');
            throw error;
          }
        },
      );
    } catch (error) {
      await this.settleFailure(runId, conversationId, error);
      throw error;
    } finally {
      release();
    }
    // The turn is stored: its result stands even if the record cannot be written now. Its
    // formation job is noted before the run is recorded completed (see `TurnFormation`).
    const { entityId } = input;
    await this.deps.formation?.()?.afterCommit({ entityId, conversationId, result });
    await Promise.all([
      this.settle(runId, conversationId, 'completed', { result }, known),
      this.activity.committed(conversationId, input.message, result),
    ]);
    return result;
  }

  /**
   * Queues a turn: the run is held (`queued`, under this process's lease) until the queue has it,
   * so a submitter that dies in between leaves a run the next caller takes over.
   */
  async submit(input: Omit<AgentRunInput, 'signal'>, reserved: boolean): Promise<string> {
    const { records, ownership } = this.deps.runs;
    assertConversationId(input.conversationId);
    const runId = input.runId ?? randomUUID();
    assertRunId(runId);
    assertRunEntityId(input.entityId);
    const { conversationId } = input;
    const release = this.leases.hold(runId);
    let known: RunSnapshot = {};
    try {
      // Validated now: a bad message fails the caller (and a reserved run), not a worker later.
      const message = turnUserMessage(input.message, runId);
      known = await ownership.claim(runId, conversationId, input.entityId);
      if (!reserved && (await records.get(runId, known))) {
        release();
        return runId;
      }
      // The run's long-term seq is taken now, when the run is created, and travels with the job.
      const longterm = this.deps.longterm;
      const seq =
        input.seq ??
        (input.entityId && longterm?.enabled ? await longterm.nextSeq(input.entityId) : undefined);
      const job: AgentRunJob = { runId, conversationId, entityId: input.entityId, message, seq };
      await Promise.all([
        records.set(runId, conversationId, 'queued', { owner: this.leases.owner }, known),
        this.recovery?.note(job),
      ]);
      // The in-process queue's runs stay held here until it settles them.
      if (!this.deps.queue.durable) this.inlineHolds.set(runId, release);
      await this.deps.queue.submit(job);
    } catch (error) {
      // Nothing ran: `failed` without attempts. Such a run never runs (a job of it that reached the
      // queue all the same is skipped), and the same Idempotency-Key queues it again.
      await this.settleFailure(runId, conversationId, error);
      await this.recovery?.forget(runId);
      this.inlineHolds.delete(runId);
      release();
      throw error;
    }
    if (this.deps.queue.durable) {
      release();
      // The queue holds it now (unless a worker took it already).
      const details = { onlyIfHeld: this.held('queued') };
      await this.settle(runId, conversationId, 'queued', details, known);
    }
    return runId;
  }

  /** One attempt of a queued run; the record says `queued` again while a retry is pending. */
  async process(job: AgentRunJob, attempt: JobAttempt): Promise<void> {
    const { records } = this.deps.runs;
    const release = this.leases.hold(job.runId);
    let result: AgentRunResult;
    let final = true;
    const known: RunSnapshot = {};
    try {
      const previous = await records.get(job.runId, known);
      // Completed; or its submission failed and the caller was told so: a job that reached the
      // queue anyway (its answer was lost) does not run it behind the caller's back.
      if (
        previous?.status === 'completed' ||
        (previous?.status === 'failed' && previous.attempts === undefined)
      ) {
        await this.recovery?.forget(job.runId);
        return;
      }
      result = await inSpan(
        RUN_SPAN,
        () => runSpanAttributes(job),
        async (span) => {
          span.setAttribute(ATTR.attempt, attempt.number);
          const started = await startAttempt(records, { ...job, owner: this.leases.owner }, known);
          try {
            const committed = await this.deps.runner().run(job, undefined, started.first);
            recordRunResult(span, committed);
            return committed;
          } catch (error) {
            span.setAttribute(
              ATTR.outcome,
              attempt.last || isFinalRunError(error) ? 'failed' : 'retrying',
            );
            throw error;
          }
        },
      );
    } catch (error) {
      final = attempt.last || isFinalRunError(error);
      const durable = this.deps.queue.durable;
      // A pending retry: a durable queue holds the run; the in-process queue holds it in this process.
      const holder = final || durable ? {} : { owner: this.leases.owner };
      const status = final ? 'failed' : 'queued';
      await this.settle(job.runId, job.conversationId, status, { error, ...holder }, known);
      if (final) await this.recovery?.forget(job.runId);
      throw error;
    } finally {
      release();
      if (final) this.releaseInline(job.runId);
    }
    await this.deps.formation?.()?.afterCommit({ ...job, result });
    const [recorded] = await Promise.all([
      this.settle(job.runId, job.conversationId, 'completed', { result }, known),
      this.activity.committed(job.conversationId, job.message, result),
    ]);
    // The turn is stored but not recorded: another attempt replays it (a no-op commit) and does.
    if (!recorded)
      throw new Error(`Run ${job.runId} committed; its completion is not recorded yet`);
    await this.recovery?.forget(job.runId);
  }

  /** Lets go of the runs held for the in-process queue (at shutdown: their leases run out). */
  stop(): void {
    for (const release of this.inlineHolds.values()) release();
    this.inlineHolds.clear();
    this.leases.stop();
  }

  /** Resolves once the titles and memories being written are (at shutdown, before stores close). */
  titlesWritten(): Promise<void> {
    return this.activity.settled();
  }

  private releaseInline(runId: string): void {
    this.inlineHolds.get(runId)?.();
    this.inlineHolds.delete(runId);
  }

  /** Records a failure of a run this process holds; a run id of another conversation is left alone. */
  private async settleFailure(runId: string, conversationId: string, error: unknown) {
    if (error instanceof RunBelongsToAnotherConversationError) return;
    await this.settle(runId, conversationId, 'failed', { error, onlyIfHeld: this.held() });
  }

  private held(status?: AgentRunStatus): NonNullable<RunTransition['onlyIfHeld']> {
    return { owner: this.leases.owner, ...(status ? { status } : {}) };
  }

  /** Writes a run's state through a passing store fault (see `settleRunRecord`). */
  private settle(
    runId: string,
    conversationId: string,
    status: AgentRunStatus,
    details: RunTransition,
    known?: RunSnapshot,
  ) {
    const { records } = this.deps.runs;
    return settleRunRecord(records, this.logger, runId, conversationId, status, details, known);
  }
}
