import type { AdvancedSettings, Queue } from 'bull';
import type { Redis } from 'ioredis';
import { Logger } from '@nestjs/common';
import { loadOptionalDependencies } from '../../../common/load-optional-dependency.js';
import { logRedisErrors } from './redis-error-log.js';
import { createRedisClient, isRedisCluster, type RedisClient } from './redis-client.js';
import { guardBullWorkerName } from './bull-worker-name.js';

const logger = new Logger('BullQueue');

/** A Bull queue made by the package, and what closes it with the clients made for it. */
export interface OpenedBullQueue {
  queue: Queue;
  /** Closes the queue (waiting for the job in progress), then the blocking/subscriber clients. */
  close(): Promise<void>;
}

/**
 * Makes a Bull queue whose plain client is the app's shared Redis client (from the connection
 * registry); Bull's blocking and subscriber clients cannot be shared, so they are made from
 * `redisUrl` and closed with the queue. `bull` and `ioredis` are optional peers, loaded here.
 *
 * On a Redis Cluster, Bull's scripts need every key of a queue in one slot: a prefix without a
 * hash tag is wrapped in one (`bull` → `{bull}`), so the queue's keys are `{bull}:<name>:…`.
 */
export async function openBullQueue(
  name: string,
  options: { redisUrl: string; prefix?: string; settings?: AdvancedSettings },
  shared: RedisClient,
  purpose: string,
): Promise<OpenedBullQueue> {
  const [bull, ioredis] = await loadOptionalDependencies<
    [{ default: typeof import('bull') }, typeof import('ioredis')]
  >(['bull', 'ioredis'], purpose);
  const own: RedisClient[] = [];
  const prefix = options.prefix ?? 'bull';
  const queue = new bull.default(name, {
    prefix: isRedisCluster(shared) ? bullClusterPrefix(prefix) : prefix,
    settings: options.settings,
    createClient: (type) => {
      if (type === 'client') return shared as Redis;
      const client = createRedisClient(ioredis, options.redisUrl, {
        maxRetriesPerRequest: null,
        enableReadyCheck: false,
      });
      logRedisErrors(client, `bull ${name} ${type}`, logger);
      own.push(client);
      // Bull's types name `Redis` only; it drives a `Cluster` through the same commands.
      return client as Redis;
    },
  });
  guardBullWorkerName(queue);
  let closing: Promise<void> | undefined;
  return {
    queue,
    close: () =>
      (closing ??= (async () => {
        await queue.close();
        await Promise.all(own.map((client) => client.quit().catch(() => client.disconnect())));
      })()),
  };
}

/**
 * A queue prefix with a hash tag: kept when it has one, else wrapped (`bull` → `{bull}`). Redis's
 * rule: the tag is what lies between the first `{` and the first `}` after it, if that is not empty.
 */
export function bullClusterPrefix(prefix: string): string {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix : `{${prefix}}`;
}
