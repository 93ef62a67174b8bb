import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { streamOf } from '../../common/async-channel.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { assertConversationId } from '../../common/messages/message-validation.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import { createKernelEngine } from '../kernel/kernel-engine.factory.js';
import { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { SweepScheduler } from '../sweeper/interfaces/sweep-scheduler.interface.js';

import { SWEEP_SCHEDULER } from '../sweeper/sweeper.constants.js';
import { WorkingMemoryService } from '../working-memory/working-memory.service.js';
import { FALLBACK_AGENT_CHAT_STORE } from './agent-defaults.module.js';
import { AgentRunner, DEFAULT_MAX_CONFLICT_RETRIES } from './agent-runner.js';
import { providerBacking, resolveAgentMemory } from './agent-memory.resolver.js';
import { isFinalRunError } from './errors/final-run-error.js';
import { openAgentQueue } from './queue/agent-queue.factory.js';
import { type Cleanup, defaultRunsOptions, openRunStore } from './runs/run-store.factory.js';
import { validateAgentOptions } from './agent-options.validation.js';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { AGENT_MODULE_OPTIONS } from './agent.module-definition.js';
import type { AgentModuleOptions, AgentRunsBackendOptions } from './agent.options.js';
import { AgentKernelHasMemoryFilterError } from './errors/agent.errors.js';
import type {
  AgentRunInput,
  AgentRunRecord,
  AgentRunResult,
  AgentStreamEvent,
} from './interfaces/agent-run.interface.js';
import type { AgentQueue, AgentRunJob, JobAttempt } from './queue/agent-queue.interface.js';
import { ReplayCache } from './runs/replay-cache.js';
import { RunRecords } from './runs/run-records.js';
import { scheduleRunSweep } from './runs/run-sweep.js';
import { RateLimit } from '../../common/rate-limit.js';
import { RunOwnership } from './runs/run-ownership.js';
import { assertRunId } from './runs/run-id.js';
import { turnUserMessage } from './turn-message.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import { DEFAULT_RUN_RETENTION_MS } from './runs/run-store.interface.js';

/**
 * The agent: runs turns with its memory provider and commits each atomically; async runs
 * go through the queue port (in-process or Bull) with retries and deterministic replay.
 */
@Injectable()
export class AgentService implements OnModuleInit, OnApplicationShutdown {
  private runner?: AgentRunner;
  private records?: RunRecords;
  private ownership?: RunOwnership;
  private runsShared = false;
  private provider?: MemoryProvider;
  private readonly logger = new Logger('Agent');
  private readonly invisibleRunWarning = new RateLimit(60_000);
  private queue?: AgentQueue;
  private readonly cleanups: Cleanup[] = [];
  private longterm?: LongtermMemoryService;

  constructor(
    @Inject(AGENT_MODULE_OPTIONS) private readonly options: AgentModuleOptions,
    @Inject(ModuleRef) private readonly moduleRef: ModuleRef,
    @Inject(ConnectionRegistry) private readonly registry: ConnectionRegistry,
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
    @Inject(FALLBACK_AGENT_CHAT_STORE) private readonly fallbackStore: () => ChatMemoryStore,
    @Optional() @Inject(SWEEP_SCHEDULER) private readonly scheduler?: SweepScheduler,
  ) {}

  async onModuleInit(): Promise<void> {
    const options = validateAgentOptions(this.options);
    this.longterm =
      options.longterm === false
        ? undefined
        : optionalProvider(this.moduleRef, LongtermMemoryService);
    const engine =
      options.kernel?.engine ??
      (await createKernelEngine(
        {
          llm: options.llm!,
          filters: options.filters,
          tools: options.tools,
          maxToolIterations: options.maxToolIterations,
        },
        {
          moduleRef: this.moduleRef,
          discovery: this.discovery,
          scanner: this.scanner,
          reflector: this.reflector,
          moduleName: 'AgentModule',
        },
      ));
    if (engine.memory) throw new AgentKernelHasMemoryFilterError();
    const provider = resolveAgentMemory(options.memory, this.moduleRef, this.fallbackStore);
    // Validation has turned a `{ uri }` into the backend form.
    const runsOptions =
      (options.runs as AgentRunsBackendOptions | undefined) ??
      defaultRunsOptions(providerBacking(provider));
    if (runsOptions.backend === 'memory' && options.queue?.driver === 'bull')
      throw new InvalidModuleOptionsError(
        'AgentModule',
        'runs',
        'a Bull queue needs run records and a run cache every worker shares (a retried job on another worker would run its tools again): give runs a redis, postgres, mysql or sqlite backend, or a chat store on one',
      );
    const runs = await openRunStore(runsOptions, this.registry);
    this.cleanups.push(runs.cleanup);
    const scheduled = await scheduleRunSweep(runs.store, runsOptions.sweep, this.scheduler);
    if (scheduled) this.cleanups.push(() => scheduled.stop());
    this.records = new RunRecords(runs.store);
    this.ownership = new RunOwnership(runs.store);
    this.runsShared = runsOptions.backend !== 'memory';
    this.provider = provider;
    this.runner = new AgentRunner({
      engine,
      provider,
      cache: new ReplayCache(runs.store),
      systemPrompt: options.systemPrompt,
      conflictPolicy: options.conflictPolicy ?? 'reject',
      maxConflictRetries: DEFAULT_MAX_CONFLICT_RETRIES,
      maxToolIterations: options.maxToolIterations,
      events: options.events,
      longterm: this.longterm,
      workingMemory: optionalProvider(this.moduleRef, WorkingMemoryService),
    });
    const retention = runsOptions.retentionMs ?? DEFAULT_RUN_RETENTION_MS;
    const queue = await openAgentQueue(
      options.queue,
      this.registry,
      (runId) => this.isSettled(runId),
      retention,
    );
    this.queue = queue.queue;
    this.cleanups.push(queue.cleanup);
    await this.queue.start((job, attempt) => this.process(job, attempt), isFinalRunError);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
  }

  /**
   * Runs a turn now and resolves once it is committed. A `runId` that already completed returns its
   * recorded result; one that failed part-way resumes from its recorded steps.
   */
  async run(input: AgentRunInput): Promise<AgentRunResult> {
    return this.execute(input);
  }

  /** Like `run`, yielding tokens and tool events, then `{ type: 'result' }`. Leaving early does not stop the turn. */
  stream(input: AgentRunInput): AsyncIterable<AgentStreamEvent> {
    return streamOf(
      (emit) => this.execute(input, emit),
      (result): AgentStreamEvent => ({ type: 'result', result }),
    );
  }

  /**
   * Queues a turn; resolves with its `runId` once queued. Read its progress with `getRun`. A `runId`
   * already used for another conversation is refused (`RunBelongsToAnotherConversationError`).
   */
  async submit(input: Omit<AgentRunInput, 'signal'>): Promise<{ runId: string }> {
    assertConversationId(input.conversationId);
    const runId = input.runId ?? randomUUID();
    assertRunId(runId);
    // Validated now: a bad message fails the caller, not a worker later.
    const message = turnUserMessage(input.message, runId);
    await this.required(this.ownership).claim(runId, input.conversationId, input.entityId);
    const existing = await this.required(this.records).get(runId);
    if (existing) return { runId };
    // The run's long-term seq is taken now, when the run is created, and travels with the job.
    const longterm = this.longterm;
    const seq =
      input.seq ??
      (input.entityId && longterm?.enabled ? await longterm.nextSeq(input.entityId) : undefined);
    const job: AgentRunJob = {
      runId,
      conversationId: input.conversationId,
      entityId: input.entityId,
      message,
      seq,
    };
    await this.required(this.records).set(runId, input.conversationId, 'queued');
    await this.required(this.queue).submit(job);
    return { runId };
  }

  /**
   * The run's record (status, and result or error), or `undefined` if unknown or expired. With a
   * run store in process memory (`runsVisibility === 'process'`), runs of other processes are never
   * seen here: a miss says so in the log.
   */
  async getRun(runId: string): Promise<AgentRunRecord | undefined> {
    assertRunId(runId);
    const record = await this.required(this.records).get(runId);
    if (!record && this.runsVisibility === 'process' && this.invisibleRunWarning.due())
      this.logger.warn(
        `Run ${runId} is unknown to this process; the agent's run store is process memory, so runs of other processes are not visible (configure runs, or a chat store on a shared backend)`,
      );
    return record;
  }

  /** `'shared'` when run records live on a shared backend; `'process'` when in process memory. */
  get runsVisibility(): 'shared' | 'process' {
    return this.runsShared ? 'shared' : 'process';
  }

  /**
   * Clears a conversation: its history (through the agent's memory provider) and every record and
   * cached step of its runs, so a deleted conversation leaves no copy in the run cache.
   */
  async clearConversation(conversationId: string): Promise<void> {
    assertConversationId(conversationId);
    await this.provider?.clear(conversationId);
    await this.required(this.ownership).forgetConversation(conversationId);
  }

  /**
   * Erases an entity: its long-term records (`deleteEntity`, which leaves the erasure mark) and the
   * records and cached steps of every run made for it (their staged long-term rows included).
   */
  async eraseEntity(entityId: string): Promise<void> {
    if (this.longterm?.enabled) await this.longterm.store.deleteEntity(entityId);
    await this.required(this.ownership).forgetEntity(entityId);
  }

  private async execute(
    input: AgentRunInput,
    onEvent?: (event: AgentStreamEvent) => void,
  ): Promise<AgentRunResult> {
    const runner = this.required(this.runner);
    const records = this.required(this.records);
    const runId = input.runId ?? randomUUID();
    assertConversationId(input.conversationId);
    assertRunId(runId);
    // Before anything is read: a run id of another conversation must not hand out its result.
    await this.required(this.ownership).claim(runId, input.conversationId, input.entityId);
    const previous = await records.get(runId);
    if (previous?.status === 'completed' && previous.result) return previous.result;
    await records.set(runId, input.conversationId, 'running');
    try {
      const result = await runner.run({ ...input, runId }, onEvent);
      await records.set(runId, input.conversationId, 'completed', { result });
      return result;
    } catch (error) {
      await records.set(runId, input.conversationId, 'failed', { error });
      throw error;
    }
  }

  /** One attempt of a queued run; the record says `queued` again while a retry is pending. */
  private async process(job: AgentRunJob, attempt: JobAttempt): Promise<void> {
    const records = this.required(this.records);
    const previous = await records.get(job.runId);
    if (previous?.status === 'completed') return;
    await records.set(job.runId, job.conversationId, 'running');
    try {
      const result = await this.required(this.runner).run(job);
      await records.set(job.runId, job.conversationId, 'completed', { result });
    } catch (error) {
      const final = attempt.last || isFinalRunError(error);
      await records.set(job.runId, job.conversationId, final ? 'failed' : 'queued', { error });
      throw error;
    }
  }

  private async isSettled(runId: string): Promise<boolean> {
    const status = (await this.required(this.records).get(runId))?.status;
    return status === 'completed' || status === 'failed';
  }

  private required<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('AgentService is used before its module initialized');
    return value;
  }
}

function optionalProvider<T>(
  moduleRef: ModuleRef,
  type: new (...args: never[]) => T,
): T | undefined {
  try {
    return moduleRef.get(type, { strict: false });
  } catch {
    return undefined;
  }
}
