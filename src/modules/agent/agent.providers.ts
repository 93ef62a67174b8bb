import type { Provider } from '@nestjs/common';
import type { Lease } from '../../common/lease.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { CHAT_MEMORY_STORE } from '../chat-memory/chat-memory.constants.js';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { ConnectionRegistry } from '../connections/connection-registry.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import type { SweepScheduler } from '../sweeper/interfaces/sweep-scheduler.interface.js';
import { SWEEP_SCHEDULER } from '../sweeper/sweeper.constants.js';
import {
  FALLBACK_AGENT_CHAT_STORE,
  AGENT_MEMORY,
  AGENT_OPTIONS,
  AGENT_QUEUE,
  AGENT_RUNS,
} from './agent.constants.js';
import { providerBacking, resolveAgentMemory } from './agent-memory.resolver.js';
import { TokenBudgetMemoryProvider } from '../memory-provider/providers/token-budget.memory-provider.js';
import { validateAgentOptions } from './agent-options.validation.js';
import { AGENT_MODULE_OPTIONS } from './agent.module-definition.js';
import type { AgentModuleOptions, AgentRunsBackendOptions } from './agent.options.js';
import { openAgentQueue } from './queue/agent-queue.factory.js';
import type { AgentQueue } from './queue/agent-queue.interface.js';
import type { ConversationDirectory } from './conversations/conversation-directory.interface.js';
import { ReplayCache } from './runs/replay-cache.js';
import { RunOwnership } from './runs/run-ownership.js';
import { RunRecords } from './runs/run-records.js';
import { defaultRunsOptions, openRunStore } from './runs/run-store.factory.js';
import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './runs/run-store.interface.js';
import { scheduleRunSweep } from './runs/run-sweep.js';

/** The agent's memory: `provider` is `undefined` for `memory: false`. */
export interface AgentMemory {
  provider?: MemoryProvider;
}

/** What the run store gives the agent. */
export interface AgentRuns {
  /** The run store the others work on. */
  store: RunStore;
  records: RunRecords;
  ownership: RunOwnership;
  cache: ReplayCache;
  /** The conversations the agent ran turns for, newest activity first. */
  directory: ConversationDirectory;
  /** Stops the sweep of expired runs (idempotent). */
  stopSweep(): Promise<void>;
  /** False when the run store is process memory (other processes' runs are invisible). */
  shared: boolean;
  retentionMs: number;
}

/**
 * The agent's providers, each built by Nest in dependency order: validated options, the memory
 * provider (the app's chat store injected when there is one), the run store on the configured
 * backend or the chat store's, its sweep, and the queue. `AgentService` releases the leases.
 */
export const AGENT_PROVIDERS: Provider[] = [
  { provide: AGENT_OPTIONS, useFactory: validateAgentOptions, inject: [AGENT_MODULE_OPTIONS] },
  {
    provide: AGENT_MEMORY,
    useFactory: async (
      options: AgentModuleOptions,
      chatStore: ChatMemoryStore | undefined,
      fallback: () => ChatMemoryStore,
    ): Promise<AgentMemory> => {
      const provider = resolveAgentMemory(options.memory, () => chatStore ?? fallback());
      // A token budget's tokenizer is an optional package: missing, it stops bootstrap.
      if (provider instanceof TokenBudgetMemoryProvider) await provider.ready();
      return { provider };
    },
    inject: [
      AGENT_OPTIONS,
      { token: CHAT_MEMORY_STORE, optional: true },
      FALLBACK_AGENT_CHAT_STORE,
    ],
  },
  {
    provide: AGENT_RUNS,
    useFactory: openAgentRuns,
    inject: [
      AGENT_OPTIONS,
      AGENT_MEMORY,
      ConnectionRegistry,
      { token: SWEEP_SCHEDULER, optional: true },
    ],
  },
  {
    provide: AGENT_QUEUE,
    useFactory: (
      options: AgentModuleOptions,
      runs: Lease<AgentRuns>,
      registry: ConnectionRegistry,
    ) => openAgentQueueLease(options, runs.value, registry),
    inject: [AGENT_OPTIONS, AGENT_RUNS, ConnectionRegistry],
  },
];

async function openAgentRuns(
  options: AgentModuleOptions,
  memory: AgentMemory,
  registry: ConnectionRegistry,
  scheduler: SweepScheduler | undefined,
): Promise<Lease<AgentRuns>> {
  // Validation has turned a `{ uri }` into the backend form.
  const runsOptions =
    (options.runs as AgentRunsBackendOptions | undefined) ??
    defaultRunsOptions(providerBacking(memory.provider));
  if (runsOptions.backend === 'memory' && options.queue?.driver === 'bull')
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'runs',
      'a Bull queue needs run records and a run cache every worker shares (a retried job on another worker would run its tools again): give runs a redis, postgres, mysql or sqlite backend, or a chat store on one',
    );
  const runs = await openRunStore(runsOptions, registry);
  const sweep = await scheduleRunSweep(runs.store, runsOptions.sweep, scheduler);
  return {
    value: {
      store: runs.store,
      records: new RunRecords(runs.store, options.runLeaseMs),
      ownership: new RunOwnership(runs.store),
      cache: new ReplayCache(runs.store),
      directory: runs.directory,
      stopSweep: async () => sweep?.stop(),
      shared: runsOptions.backend !== 'memory',
      retentionMs: runsOptions.retentionMs ?? DEFAULT_RUN_RETENTION_MS,
    },
    release: async () => {
      await sweep?.stop();
      await runs.cleanup();
    },
  };
}

async function openAgentQueueLease(
  options: AgentModuleOptions,
  runs: AgentRuns,
  registry: ConnectionRegistry,
): Promise<Lease<AgentQueue>> {
  // The Bull driver's conversation lease follows the run lease unless set apart.
  const queue =
    options.queue?.driver === 'bull'
      ? { leaseMs: runs.records.lease, ...options.queue }
      : options.queue;
  const opened = await openAgentQueue(
    queue,
    registry,
    {
      state: (runId) => runs.records.headState(runId),
      lost: async (runId, conversationId) => {
        await runs.records.markLost(runId, conversationId);
      },
    },
    runs.retentionMs,
  );
  return {
    value: opened.queue,
    release: async () => {
      await opened.queue.close();
      await opened.cleanup();
    },
  };
}
