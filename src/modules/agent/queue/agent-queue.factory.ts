import type { Cleanup } from '../runs/run-store.factory.js';
import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';
import { type ConnectionRegistry } from '../../connections/connection-registry.js';
import { openBullQueue } from '../../connections/redis/open-bull-queue.js';
import type { AgentQueueOptions } from '../agent.options.js';
import type { AgentQueue } from './agent-queue.interface.js';
import { BullAgentQueue } from './bull.agent-queue.js';
import { ConversationSequencer } from './conversation-sequencer.js';
import { InlineAgentQueue } from './inline.agent-queue.js';

/** Bull's lock on a job (and, unless set apart, the stalled-job check interval): 30 s. */
export const DEFAULT_BULL_LOCK_DURATION_MS = 30_000;

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
    leaseClient = lease.value;
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
