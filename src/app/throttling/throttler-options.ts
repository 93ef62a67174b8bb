import type { ExecutionContext } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import { CALLS_MODEL } from 'nest-agent-memory/http';
import type { httpConfig } from '../../config/http.config.js';
import type { AppRedis } from '../redis/app-redis.provider.js';
import { RedisThrottlerStorage } from './redis-throttler.storage.js';

/** Whether the route calls the model (turns, chat, queued turns): `@CallsModel()`. */
function callsModel(context: ExecutionContext): boolean {
  return Reflect.getMetadata(CALLS_MODEL, context.getHandler()) === true;
}

/**
 * Two budgets per tenant (per client address when the API is open), each counted across every
 * route, not per route: `RATE_LIMIT_MAX` requests per `RATE_LIMIT_TTL_MS` on all routes, and
 * `RATE_LIMIT_TURNS_MAX` in the same window on the routes that call the model. Counted in Redis when
 * the app has one (limits hold across instances), else in process memory; 0 turns either off.
 */
export function throttlerOptions(
  http: ConfigType<typeof httpConfig>,
  redis: AppRedis,
): ThrottlerModuleOptions {
  const all = http.rateLimit;
  const turns = http.turnsRateLimit;
  return {
    throttlers: [
      {
        name: 'default',
        ttl: all ? all.ttlMs : 60_000,
        limit: all ? all.limit : 1,
        skipIf: () => all === false,
      },
      {
        name: 'turns',
        ttl: turns ? turns.ttlMs : 60_000,
        limit: turns ? turns.limit : 1,
        skipIf: (context) => turns === false || !callsModel(context),
      },
    ],
    // One counter per tenant and budget, whatever the route (the default key names the handler).
    generateKey: (_context, tracker, name) => `${name}:${tracker}`,
    ...(redis.client
      ? { storage: new RedisThrottlerStorage(redis.client, `${redis.keyPrefix}throttle:`) }
      : {}),
  };
}
