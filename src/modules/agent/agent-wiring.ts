import type { ModuleRef } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { CHAT_MEMORY_STORE } from '../chat-memory/chat-memory.constants.js';
import { ConversationVersionConflictError } from '../chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import {
  type ConnectionRegistry,
  dialectOfDataSource,
} from '../connections/connection-registry.js';
import { openBullQueue } from '../connections/redis/open-bull-queue.js';
import { KernelAbortedError, MaxToolIterationsError } from '../kernel/errors/kernel.errors.js';
import { LlmError } from '../llm/llm-errors.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import { DefaultMemoryProvider } from '../memory-provider/providers/default.memory-provider.js';
import { DeferredChatMemoryStore } from '../memory-provider/deferred-chat-memory.store.js';
import {
  type ChatStoreBacking,
  backingOf,
} from '../chat-memory/interfaces/chat-store-backing.interface.js';
import { isMemoryProvider } from './agent-options.validation.js';
import type {
  AgentMemoryOption,
  AgentQueueOptions,
  AgentRunsBackendOptions,
} from './agent.options.js';
import type { AgentQueue } from './queue/agent-queue.interface.js';
import { BullAgentQueue } from './queue/bull.agent-queue.js';
import { ConversationSequencer } from './queue/conversation-sequencer.js';
import { InlineAgentQueue } from './queue/inline.agent-queue.js';
import { InMemoryRunStore } from './runs/in-memory.run-store.js';
import { RedisRunStore } from './runs/redis.run-store.js';
import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './runs/run-store.interface.js';
import { SqlRunStore } from './runs/sql.run-store.js';
import { AGENT_RUNS_SCHEMA } from './runs/schema/agent-runs.schema.js';

/** Bull's lock on a job (and, unless set apart, the stalled-job check interval): 30 s. */
export const DEFAULT_BULL_LOCK_DURATION_MS = 30_000;

/** Something to undo at shutdown (a lease to release, a client to close). */
export type Cleanup = () => Promise<void>;

/** The memory provider of the agent's memory option (validated and normalized beforehand). */
export function resolveAgentMemory(
  option: AgentMemoryOption | undefined,
  moduleRef: ModuleRef,
  fallback: () => ChatMemoryStore,
): MemoryProvider | undefined {
  if (option === false || option === 'none') return undefined;
  const defaultStore = (): ChatMemoryStore => {
    try {
      return moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE, { strict: false });
    } catch {
      return fallback();
    }
  };
  if (option === undefined || option === 'default')
    return new DefaultMemoryProvider(defaultStore());
  if (isMemoryProvider(option)) return option as MemoryProvider;
  const { store, window } = option as { store?: ChatMemoryStore; window?: number };
  return new DefaultMemoryProvider(store ?? defaultStore(), window ?? Infinity);
}

/** Where the provider's chat store keeps its data, when it is a built-in store. */
export function providerBacking(
  provider: MemoryProvider | undefined,
): ChatStoreBacking | undefined {
  let store = (provider as { store?: unknown } | undefined)?.store;
  if (store instanceof DeferredChatMemoryStore) store = store.resolveNow();
  return backingOf(store);
}

/**
 * The run options implied by the chat store's backing, when none are given: the same connection
 * (an adopted DataSource or Redis client, never closed by the run store), else process memory.
 */
export function defaultRunsOptions(backing: ChatStoreBacking | undefined): AgentRunsBackendOptions {
  switch (backing?.kind) {
    case 'sql':
      // The run tables go where the chat store's are, migrated the way the chat store's module is.
      return {
        backend: dialectOfDataSource(backing.dataSource),
        dataSource: backing.dataSource,
        migrationsRun: backing.migrationsRun,
      };
    case 'redis':
      return { backend: 'redis', client: backing.client };
    default:
      return { backend: 'memory' };
  }
}

/** The run store on the configured backend, through the connection registry. */
export async function openRunStore(
  options: AgentRunsBackendOptions | undefined,
  registry: ConnectionRegistry,
): Promise<{ store: RunStore; cleanup: Cleanup }> {
  const retention = options?.retentionMs ?? DEFAULT_RUN_RETENTION_MS;
  const none: Cleanup = async () => undefined;
  if (!options || options.backend === 'memory')
    return { store: new InMemoryRunStore(retention), cleanup: none };
  if (options.backend === 'redis') {
    const lease = await registry.useRedis(options);
    return {
      store: new RedisRunStore(lease.connection, options.keyPrefix, retention),
      cleanup: lease.release,
    };
  }
  const migrationsRun = options.migrationsRun ?? true;
  if ('dataSource' in options) {
    return {
      store: new SqlRunStore(
        await registry.adoptDataSource(options.dataSource, {
          migrationsRun,
          schema: AGENT_RUNS_SCHEMA,
        }),
        retention,
      ),
      cleanup: none,
    };
  }
  const lease = await registry.acquireSql(
    options.backend === 'sqlite'
      ? { dialect: 'sqlite', path: options.path }
      : { dialect: options.backend, url: options.url },
    { migrationsRun, schema: AGENT_RUNS_SCHEMA },
  );
  return { store: new SqlRunStore(lease.connection, retention), cleanup: lease.release };
}

/** The async-run queue of the configured driver. */
export async function openAgentQueue(
  options: AgentQueueOptions | undefined,
  registry: ConnectionRegistry,
  isSettled: (runId: string) => Promise<boolean>,
  retentionMs: number,
): Promise<{ queue: AgentQueue; cleanup: Cleanup }> {
  if (!options || options.driver === 'inline')
    return { queue: new InlineAgentQueue(options), cleanup: async () => undefined };
  if (options.driver !== 'bull')
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'queue.driver',
      "must be 'inline' or 'bull'",
    );
  const cleanups: Cleanup[] = [];
  let queue = options.queue;
  let leaseClient;
  if (options.redisUrl) {
    const lease = await registry.acquireRedis(options.redisUrl);
    cleanups.push(lease.release);
    leaseClient = lease.connection;
  }
  if (!queue) {
    if (!options.redisUrl)
      throw new InvalidModuleOptionsError(
        'AgentModule',
        'queue.redisUrl',
        'is required unless a Bull queue is given',
      );
    queue = await createBullQueue(options, leaseClient!, cleanups);
  }
  leaseClient ??= (queue as unknown as { client: NonNullable<typeof leaseClient> }).client;
  const sequencer = new ConversationSequencer(
    leaseClient,
    `${options.prefix ?? 'bull'}:agent-seq:`,
    retentionMs,
  );
  const driver = new BullAgentQueue(queue as never, sequencer, isSettled, options);
  return {
    queue: driver,
    cleanup: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}

async function createBullQueue(
  options: Extract<AgentQueueOptions, { driver: 'bull' }>,
  shared: NonNullable<ConstructorParameters<typeof ConversationSequencer>[0]>,
  cleanups: Cleanup[],
) {
  const lockDuration = options.lockDurationMs ?? DEFAULT_BULL_LOCK_DURATION_MS;
  const opened = await openBullQueue(
    options.name ?? 'agent-runs',
    {
      redisUrl: options.redisUrl!,
      prefix: options.prefix,
      settings: {
        lockDuration,
        stalledInterval: options.stalledIntervalMs ?? lockDuration,
        // A run outlives many stalls only if its worker keeps dying: replays make each safe.
        maxStalledCount: 10,
      },
    },
    shared,
    'the bull queue driver',
  );
  cleanups.push(opened.close);
  return opened.queue;
}

/** Errors that another attempt cannot fix: not retried. */
export function isFinalRunError(error: unknown): boolean {
  if (error instanceof LlmError) return !error.retryable;
  return (
    error instanceof ConversationVersionConflictError ||
    error instanceof InvalidArgumentError ||
    error instanceof MaxToolIterationsError ||
    error instanceof KernelAbortedError
  );
}
