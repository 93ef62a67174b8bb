import type {
  BeforeApplicationShutdown,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { streamOf } from '../../common/async-channel.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import type { KernelEngine } from '../kernel/kernel-engine.js';
import { ConversationTitler } from './conversations/conversation-titler.js';
import type { FormationRerun, TurnFormation } from './turn-formation.js';
import type { EntityProfiles } from '../formation/profile/entity-profiles.js';
import { formationSharingOf } from './formation-journal.js';
import { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import type { AgentRunner } from './agent-runner.js';
import { buildAgentRunner } from './build-agent-runner.js';
import { isFinalRunError } from './errors/final-run-error.js';
import { AGENT_MEMORY, AGENT_OPTIONS, AGENT_QUEUE, AGENT_RUNS } from './agent.constants.js';
import type { Lease } from '../../common/lease.js';
import type { AgentMemory, AgentRuns } from './agent.providers.js';
import type { AgentModuleOptions } from './agent.options.js';
import type {
  AgentRunInput,
  AgentRunRecord,
  AgentRunResult,
  AgentStreamEvent,
} from './interfaces/agent-run.interface.js';
import type { AgentRunSteps } from './interfaces/agent-run-steps.interface.js';
import type {
  ConversationListPage,
  ConversationListing,
  ConversationPage,
  ConversationPatch,
} from './conversations/conversation-directory.interface.js';
import type { AgentQueue } from './queue/agent-queue.interface.js';
import { RunLifecycle } from './run-lifecycle.js';
import { BullAgentQueue } from './queue/bull.agent-queue.js';
import { assertRunEntityId, assertRunId } from './runs/run-id.js';
import { listConversations, pageRunsOf, readRun } from './runs/run-queries.js';

/**
 * The agent: runs turns with its memory provider and commits each atomically; async runs
 * go through the queue port (in-process or Bull) with retries and deterministic replay.
 */
@Injectable()
export class AgentService
  implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown
{
  private runner?: AgentRunner;
  private engine?: KernelEngine;
  private formation?: TurnFormation;
  private readonly longterm?: LongtermMemoryService;
  private readonly runs: AgentRuns;
  private readonly queue: AgentQueue;
  private queueStopped?: Promise<void>;
  private readonly lifecycle: RunLifecycle;

  constructor(
    @Inject(AGENT_OPTIONS) private readonly options: AgentModuleOptions,
    @Inject(AGENT_MEMORY) private readonly memory: AgentMemory,
    @Inject(AGENT_RUNS) private readonly runsLease: Lease<AgentRuns>,
    @Inject(AGENT_QUEUE) private readonly queueLease: Lease<AgentQueue>,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Optional() @Inject(LongtermMemoryService) longterm?: LongtermMemoryService,
    @Optional() @Inject(WorkingMemoryService) private readonly workingMemory?: WorkingMemoryService,
  ) {
    this.longterm = options.longterm === false ? undefined : longterm;
    this.runs = runsLease.value;
    this.queue = queueLease.value;
    this.lifecycle = new RunLifecycle({
      runs: this.runs,
      queue: this.queue,
      runner: () => this.required(this.runner),
      longterm: this.longterm,
      formation: () => this.formation,
      ...(options.titles === 'model'
        ? { titler: new ConversationTitler(() => this.required(this.engine), this.runs.directory) }
        : {}),
    });
  }

  /**
   * Builds the agent's kernel (its tools are discovered once every provider exists) and runner, and
   * starts processing queued runs.
   */
  async onModuleInit(): Promise<void> {
    const { engine, runner, formation } = await buildAgentRunner(this.options, {
      moduleRef: this.moduleRef,
      discovery: this.discovery,
      scanner: this.scanner,
      reflector: this.reflector,
      provider: this.memory.provider,
      cache: this.runs.cache,
      longterm: this.longterm,
      workingMemory: this.workingMemory,
      ...formationSharingOf(this.runs, this.lifecycle.leases.owner),
    });
    this.engine = engine;
    this.runner = runner;
    this.formation = formation;
    await this.queue.start((job, attempt) => this.lifecycle.process(job, attempt), isFinalRunError);
    // Before the app serves: runs an earlier process acknowledged run before new ones.
    await this.lifecycle.startRecovery();
  }

  /**
   * Stops the work before any connection closes — the queue (its active runs finish) and the run
   * sweep — so a connection the app owns (its `TypeOrmModule` DataSource, closed in the next phase)
   * is never used closed, whatever the order of the app's imports.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.lifecycle.stopRecovery();
    await this.stopQueue();
    await Promise.all([this.runs.stopSweep(), this.lifecycle.titlesWritten()]);
  }

  /**
   * Then — once every module's first phase ran, so the HTTP turns in flight drained while their
   * leases were renewed — stops renewing and lets go of the run store's connection.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.stopQueue();
    // A title begun by a turn that drained after the first phase is written before the stores close.
    await this.lifecycle.titlesWritten();
    this.lifecycle.stop();
    await this.runsLease.release();
  }

  /** Closes the queue once, whichever shutdown phase asks first. */
  private stopQueue(): Promise<void> {
    return (this.queueStopped ??= this.queueLease.release());
  }

  /**
   * Runs a turn now and resolves once it is committed. A `runId` that already completed returns its
   * recorded result; one that failed part-way resumes from its recorded steps.
   */
  async run(input: AgentRunInput): Promise<AgentRunResult> {
    return this.lifecycle.execute(input);
  }

  /** Like `run`, yielding tokens and tool events, then `{ type: 'result' }`. Leaving early does not stop the turn. */
  stream(input: AgentRunInput): AsyncIterable<AgentStreamEvent> {
    return streamOf(
      (emit) => this.lifecycle.execute(input, emit),
      (result): AgentStreamEvent => ({ type: 'result', result }),
    );
  }

  /**
   * Reserves a run id before running it, for callers that must never run one turn twice (an HTTP
   * `Idempotency-Key`): atomically records the run `running`, held by this process under a lease it
   * renews, and resolves `undefined` to the one caller that should now `run` (or `submit`) it; every
   * other caller gets the existing record (completed with its result, queued, running). A failed
   * run, or one whose holder stopped renewing its lease (its process died; 10 s by default), is
   * handed to exactly one later caller again. A run id of another conversation is refused
   * (`RunBelongsToAnotherConversationError`).
   */
  async reserveRun(input: {
    runId: string;
    conversationId: string;
    entityId?: string;
  }): Promise<AgentRunRecord | undefined> {
    assertConversationId(input.conversationId);
    assertRunId(input.runId);
    assertRunEntityId(input.entityId);
    return this.lifecycle.reserve(input);
  }

  /**
   * Queues a turn; resolves with its `runId` once queued. Read its progress with `getRun`. A `runId`
   * already used for another conversation is refused (`RunBelongsToAnotherConversationError`).
   * `reserved`: the caller won `reserveRun` for this run id, so it is queued although it has a record.
   */
  async submit(
    input: Omit<AgentRunInput, 'signal'>,
    options: { reserved?: boolean } = {},
  ): Promise<{ runId: string }> {
    return { runId: await this.lifecycle.submit(input, options.reserved ?? false) };
  }

  /**
   * The run's record (status, and result or error), or `undefined` if unknown or expired. With a
   * run store in process memory (`runsVisibility === 'process'`), runs of other processes are never
   * seen here: a miss says so in the log.
   */
  async getRun(runId: string): Promise<AgentRunRecord | undefined> {
    assertRunId(runId);
    return readRun(this.runs, runId);
  }

  /**
   * What a run did, step by step, from its run cache: each model call and tool call of each
   * attempt scope, whether a later attempt replayed it, the long-term rows each tool step staged,
   * and the keys the run flushed or saw refused. `undefined` when the run is unknown or expired.
   */
  async runSteps(runId: string): Promise<AgentRunSteps | undefined> {
    assertRunId(runId);
    const record = await this.runs.records.get(runId);
    if (!record) return undefined;
    const recorded = await this.runs.cache.recorded(runId);
    return { runId, conversationId: record.conversationId, ...recorded };
  }

  /**
   * A conversation's runs, newest first, `limit` at a time (1–100): pass the last record's
   * `createdAt` and `runId` as `after` for the next page. Reads `limit` entries of the
   * conversation's run index and their records, however many runs it has (runs live for the
   * retention, 7 days by default).
   */
  async runsOf(
    conversationId: string,
    page: { limit: number; after?: { createdAt: number; runId: string } },
  ): Promise<AgentRunRecord[]> {
    return pageRunsOf(this.runs, conversationId, page);
  }

  /**
   * The conversations of a namespace (the part of their id before the last `/`, `''` for ids
   * without one), newest activity first, `limit` at a time (1–100): pass the page's `next` as
   * `after` for the next page (`next` is absent on the last). A conversation is listed from its
   * first stored turn until `clearConversation`, at the time a turn of it was last stored (a turn
   * that fails, is stopped or still runs changes nothing of the list); entries do not expire with
   * the run retention. Each listing has the conversation's `title` (set by `updateConversation`,
   * else its first user message's text), `preview` (its newest user message) and `metadata`, each
   * when it has one. `metadata` (1–5 pairs) keeps only conversations holding every pair; a filtered
   * page reads at most 1,000 entries, so it may hold fewer than `limit` (even none) with a `next`.
   */
  async conversations(namespace: string, page: ConversationPage): Promise<ConversationListPage> {
    return listConversations(this.runs, namespace, page);
  }

  /**
   * Changes a conversation's title (`null` clears it: no default title comes back) and metadata
   * (merged: a `null` value deletes its key; at most 16 keys of 1–64 characters of
   * `[A-Za-z0-9_.-]`, values of at most 512 characters). Resolves the updated listing, or
   * `undefined` when the directory does not list the conversation (it never had a run, or it was
   * cleared). Bad input throws `InvalidArgumentError`, naming the key at fault.
   */
  async updateConversation(
    conversationId: string,
    patch: ConversationPatch,
  ): Promise<ConversationListing | undefined> {
    assertConversationId(conversationId);
    return this.runs.directory.update(conversationId, patch);
  }

  /**
   * The Bull queue async runs go through when the agent uses the Bull driver (for a dashboard such
   * as bull-board, or a health check); `undefined` with the inline driver.
   */
  get bullQueue(): BullAgentQueue['bull'] | undefined {
    return this.queue instanceof BullAgentQueue ? this.queue.bull : undefined;
  }

  /** `'shared'` when run records live on a shared backend; `'process'` when in process memory. */
  get runsVisibility(): 'shared' | 'process' {
    return this.runs.shared ? 'shared' : 'process';
  }

  /**
   * Clears a conversation: its history, its messages in the recall index, its runs' records and
   * cached steps (no copy is left in the run cache), and its entry in the conversation directory.
   */
  async clearConversation(conversationId: string): Promise<void> {
    assertConversationId(conversationId);
    await this.memory.provider?.clear(conversationId);
    if (this.longterm?.enabled) await this.longterm.forgetConversation(conversationId);
    await this.runs.ownership.forgetConversation(conversationId);
    await this.runs.directory.remove(conversationId);
  }

  /** Erases an entity: its long-term tier (`LongtermMemoryService.deleteEntity`) and its runs. */
  async eraseEntity(entityId: string): Promise<void> {
    if (this.longterm?.enabled) await this.longterm.deleteEntity(entityId);
    await this.runs.ownership.forgetEntity(entityId);
  }

  /** Runs a failed formation job again (by its turn's run id); `null` when there is none. */
  async rerunFormation(entityId: string, runId: string): Promise<FormationRerun | null> {
    assertRunId(runId);
    return (await this.formation?.rerun(entityId, runId)) ?? null;
  }

  /** With `formation.profile`: the entity profiles formation keeps and edits change. */
  get profiles(): EntityProfiles | undefined {
    return this.formation?.profiles;
  }

  private required<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('AgentService is used before its module initialized');
    return value;
  }
}
