import { registerAs } from '@nestjs/config';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readString } from './env.js';
import { readRedisUrl } from './redis-url.js';

/** The app's Redis, when it has one. */
export interface RedisConfig {
  /** `REDIS_URL`: turns on the Bull queue, Redis working memory and shared rate limits. */
  url?: string;
  /** `REDIS_KEY_PREFIX`: the start of every key the app writes there (the queue's aside). */
  keyPrefix: string;
}

/** The start of every Redis key the app writes but the queue's (`QUEUE_PREFIX`). */
export const DEFAULT_REDIS_KEY_PREFIX = 'agent-memory:';

/**
 * `REDIS_KEY_PREFIX` (default `agent-memory:`): what every Redis key of the app starts with, so two
 * deployments can share one Redis database — each store's keys under it (`<prefix>chat:`,
 * `<prefix>runs:`, `<prefix>longterm:`, `<prefix>working:`, `<prefix>chat-streams:`), and the rate
 * limits' and failed sign-ins' counters, and the queue's (`<prefix>bull`) unless `QUEUE_PREFIX`
 * names it. 1–100 printable ASCII characters, no braces (they would name a Redis Cluster hash tag)
 * and no spaces.
 */
export function readRedisKeyPrefix(env: Env = process.env): string {
  const prefix = readString(env, 'REDIS_KEY_PREFIX') ?? DEFAULT_REDIS_KEY_PREFIX;
  if (!/^[\x21-\x7a\x7c\x7e]{1,100}$/.test(prefix))
    throw new ConfigValidationError(
      'REDIS_KEY_PREFIX',
      `must be 1–100 ASCII characters without spaces, { or }, got ${JSON.stringify(prefix)}`,
    );
  return prefix;
}

/** Reads `REDIS_URL`. */
export function loadRedisConfig(env: Env = process.env): RedisConfig {
  const url = readRedisUrl(env);
  const keyPrefix = readRedisKeyPrefix(env);
  return url ? { url, keyPrefix } : { keyPrefix };
}

/** The `redis` config namespace. */
export const redisConfig = registerAs('redis', () => loadRedisConfig());
