import type { ModuleRef } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { CHAT_MEMORY_STORE } from '../chat-memory/chat-memory.constants.js';
import { ConversationVersionConflictError } from '../chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import type { ConnectionRegistry } from '../connections/connection-registry.js';
import { openBullQueue } from '../connections/redis/open-bull-queue.js';
import { KernelAbortedError, MaxToolIterationsError } from '../kernel/errors/kernel.errors.js';
import { LlmError } from '../kernel/llm/llm-errors.js';
import type { MemoryProvider } from '../memory-provider/interfaces/memory-provider.interface.js';
import { DefaultMemoryProvider } from '../memory-provider/providers/default.memory-provider.js';
import type { AgentMemoryOption, AgentQueueOptions, AgentRunsOptions } from './agent.options.js';
import type { AgentQueue } from './queue/agent-queue.interface.js';
import { BullAgentQueue } from './queue/bull.agent-queue.js';
import { ConversationSequencer } from './queue/conversation-sequencer.js';
import { InlineAgentQueue } from './queue/inline.agent-queue.js';
import { InMemoryRunStore } from './runs/in-memory.run-store.js';
import { RedisRunStore } from './runs/redis.run-store.js';
import { DEFAULT_RUN_RETENTION_MS, type RunStore } from './runs/run-store.interface.js';
import { SqlRunStore } from './runs/sql.run-store.js';

/** Something to undo at shutdown (a lease to release, a client to close). */
export type Cleanup = () => Promise<void>;

/** The memory provider of DESIGN §7's five forms. */
export function resolveAgentMemory(
  option: AgentMemoryOption | undefined,
  moduleRef: ModuleRef,
  fallback: () => ChatMemoryStore,
): MemoryProvider | undefined {
  if (option === false) return undefined;
  const defaultStore = (): ChatMemoryStore => {
    try {
      return moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE, { strict: false });
    } catch {
      return fallback();
    }
  };
  if (option === undefined || option === 'default')
    return new DefaultMemoryProvider(defaultStore());
  if (isMemoryProvider(option)) return option;
  if ('store' in option) return new DefaultMemoryProvider(option.store);
  if ('window' in option) return new DefaultMemoryProvider(defaultStore(), option.window);
  throw new InvalidModuleOptionsError(
    'AgentModule',
    'memory',
    "must be 'default', { window }, { store }, a MemoryProvider or false",
  );
}

function isMemoryProvider(value: unknown): value is MemoryProvider {
  const candidate = value as Partial<MemoryProvider>;
  return (
    typeof candidate?.prepare === 'function' &&
    typeof candidate.history === 'function' &&
    typeof candidate.append === 'function'
  );
}

/** The run store on the configured backend, through the connection registry. */
export async function openRunStore(
  options: AgentRunsOptions | undefined,
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
  if ('dataSource' in options) {
    return {
      store: new SqlRunStore(
        await registry.adoptDataSource(options.dataSource, { migrationsRun: true }),
        retention,
      ),
      cleanup: none,
    };
  }
  const lease = await registry.acquireSql(
    options.backend === 'sqlite'
      ? { dialect: 'sqlite', path: options.path }
      : { dialect: options.backend, url: options.url },
    { migrationsRun: true },
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
  const lockDuration = options.lockDurationMs ?? 30_000;
  const opened = await openBullQueue(
    options.name ?? 'agent-runs',
    {
      redisUrl: options.redisUrl!,
      prefix: options.prefix,
      settings: { lockDuration, stalledInterval: lockDuration, maxStalledCount: 10 },
    },
    shared,
    'the bull queue driver',
  );
  cleanups.push(opened.close);
  return opened.queue;
}

/** Errors that another attempt cannot fix (DESIGN §7): not retried. */
export function isFinalRunError(error: unknown): boolean {
  if (error instanceof LlmError) return !error.retryable;
  return (
    error instanceof ConversationVersionConflictError ||
    error instanceof InvalidArgumentError ||
    error instanceof MaxToolIterationsError ||
    error instanceof KernelAbortedError
  );
}
