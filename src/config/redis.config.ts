import { registerAs } from '@nestjs/config';
import type { Env } from './env.js';
import { readRedisUrl } from './redis-url.js';

/** The app's Redis, when it has one. */
export interface RedisConfig {
  /** `REDIS_URL`: turns on the Bull queue, Redis working memory and shared rate limits. */
  url?: string;
}

/** Reads `REDIS_URL`. */
export function loadRedisConfig(env: Env = process.env): RedisConfig {
  const url = readRedisUrl(env);
  return url ? { url } : {};
}

/** The `redis` config namespace. */
export const redisConfig = registerAs('redis', () => loadRedisConfig());
