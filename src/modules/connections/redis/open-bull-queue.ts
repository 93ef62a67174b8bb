import type { AdvancedSettings, Queue } from 'bull';
import type { Redis } from 'ioredis';
import { Logger } from '@nestjs/common';
import { loadOptionalDependency } from '../../../common/load-optional-dependency.js';
import { logRedisErrors } from './redis-error-log.js';

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
 */
export async function openBullQueue(
  name: string,
  options: { redisUrl: string; prefix?: string; settings?: AdvancedSettings },
  shared: Redis,
  purpose: string,
): Promise<OpenedBullQueue> {
  const bull = await loadOptionalDependency<{ default: typeof import('bull') }>('bull', purpose);
  const ioredis = await loadOptionalDependency<typeof import('ioredis')>('ioredis', purpose);
  const own: Redis[] = [];
  const queue = new bull.default(name, {
    prefix: options.prefix ?? 'bull',
    settings: options.settings,
    createClient: (type) => {
      if (type === 'client') return shared;
      const client = new ioredis.Redis(options.redisUrl, {
        maxRetriesPerRequest: null,
        enableReadyCheck: false,
      });
      logRedisErrors(client, `bull ${name} ${type}`, logger);
      own.push(client);
      return client;
    },
  });
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
