import type { ConfigType } from '@nestjs/config';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { httpConfig } from '../../config/http.config.js';
import type { AppRedis } from '../redis/app-redis.provider.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/**
 * `RATE_LIMIT_MAX` requests per `RATE_LIMIT_TTL_MS` per tenant; counted in Redis when the app has
 * one (limits hold across instances), else in process memory. `RATE_LIMIT_MAX=0` turns it off.
 */
export function throttlerOptions(
  http: ConfigType<typeof httpConfig>,
  redis: AppRedis,
): ThrottlerModuleOptions {
  const limit = http.rateLimit;
  return {
    throttlers: [
      { name: 'default', ttl: limit ? limit.ttlMs : 60_000, limit: limit ? limit.limit : 1 },
    ],
    skipIf: () => limit === false,
    ...(redis.client ? { storage: new RedisThrottlerStorage(redis.client) } : {}),
  };
}
