import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import * as ioredis from 'ioredis';
import { createRedisClient, logRedisErrors, type RedisClient } from 'nest-agent-memory';
import { redisConfig } from '../../config/redis.config.js';

/**
 * The app's own Redis client (`REDIS_URL`, a single server or a cluster), for what the library does not own: the shared rate-limit
 * counters and the queue's health check. Absent without `REDIS_URL`.
 */
@Injectable()
export class AppRedis implements OnApplicationShutdown {
  readonly client?: RedisClient;
  /** `REDIS_KEY_PREFIX`: the start of the keys the app writes through it. */
  readonly keyPrefix: string;

  constructor(@Inject(redisConfig.KEY) config: ConfigType<typeof redisConfig>) {
    this.keyPrefix = config.keyPrefix;
    this.client = config.url
      ? createRedisClient(ioredis, config.url, { maxRetriesPerRequest: 2 })
      : undefined;
    // Its errors as log lines of the app's format, not ioredis's unhandled error events.
    if (this.client) logRedisErrors(this.client, 'app', new Logger(AppRedis.name));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
