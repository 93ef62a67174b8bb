import {
  InvalidArgumentError,
  isRedisClusterUrl,
  parseRedisClusterUrl,
  REDIS_CLUSTER_SCHEMES,
} from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readString, readUrl } from './env.js';

/** The schemes `REDIS_URL` may use: a single server, or a Redis Cluster by its seed nodes. */
export const REDIS_SCHEMES = ['redis:', 'rediss:', ...REDIS_CLUSTER_SCHEMES] as const;

/**
 * `REDIS_URL`, or `undefined` when unset: `redis://…`/`rediss://…` for one server,
 * `redis+cluster://host:port,host:port…` (or `rediss+cluster://`) for a cluster.
 */
export function readRedisUrl(env: Env): string | undefined {
  const raw = readString(env, 'REDIS_URL');
  if (raw === undefined || !isRedisClusterUrl(raw)) return readUrl(env, 'REDIS_URL', REDIS_SCHEMES);
  checkRedisClusterUrl(raw, 'REDIS_URL');
  return raw;
}

/** Checks a cluster URL as the library reads it; errors name the fault, never the credentials. */
export function checkRedisClusterUrl(url: string, variable: string): void {
  try {
    parseRedisClusterUrl(url);
  } catch (error) {
    if (error instanceof InvalidArgumentError)
      throw new ConfigValidationError(variable, error.problem);
    throw error;
  }
}
