import type { RedisClient } from './redis-client.js';

/**
 * A Redis backend in a module's options: by URL (the connection is shared through the registry)
 * or an ioredis client of yours (never closed by the package); keys under `keyPrefix`.
 */
export type RedisBackendOptions = { backend: 'redis'; keyPrefix?: string } & (
  { url: string } | { client: RedisClient }
);
