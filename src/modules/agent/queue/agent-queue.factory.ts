import type { Queue } from 'bull';
import type { Cleanup } from '../runs/run-store.factory.js';
import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';
import { type ConnectionRegistry } from '../../connections/connection-registry.js';
import { openBullQueue } from '../../connections/redis/open-bull-queue.js';
import type { AgentQueueOptions } from '../agent.options.js';
import type { AgentQueue } from './agent-queue.interface.js';
import { BullAgentQueue, type HeadRuns } from './bull.agent-queue.js';
import { ConversationSequencer } from './conversation-sequencer.js';
import { InlineAgentQueue } from './inline.agent-queue.js';

/**
 * Bull's lock on a job: 10 s (renewed every 5 s). Workers look for stalled jobs every half of it
 * unless told otherwise, so a killed worker's job is back in the queue within about 15 s.
 */
export const DEFAULT_BULL_LOCK_DURATION_MS = 10_000;

/** The async-run queue of the configured driver. */
export async function openAgentQueue(
  options: AgentQueueOptions | undefined,
  registry: ConnectionRegistry,
  heads: HeadRuns,
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
  // The conversation leases go on the app's Redis (`redisUrl`), else on the given queue's client.
  const redis = options.redisUrl
    ? await registry.acquireRedis(options.redisUrl).then((lease) => {
        cleanups.push(lease.release);
        return lease.value;
      })
    : undefined;
  let queue: Queue;
  if (options.queue) queue = options.queue;
  else if (redis) queue = await createBullQueue(options, redis, cleanups);
  else
    throw new InvalidModuleOptionsError(
      'AgentModule',
      'queue.redisUrl',
      'is required unless a Bull queue is given',
    );
  const sequencer = new ConversationSequencer(
    redis ?? queue.client,
    `${options.prefix ?? 'bull'}:agent-seq:`,
    retentionMs,
  );
  const driver = new BullAgentQueue(queue, sequencer, heads, options);
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
        stalledInterval: options.stalledIntervalMs ?? Math.ceil(lockDuration / 2),
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
