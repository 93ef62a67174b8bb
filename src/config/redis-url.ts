import { type Env, readUrl } from './env.js';

/** The schemes `REDIS_URL` may use. */
export const REDIS_SCHEMES = ['redis:', 'rediss:'] as const;

/** `REDIS_URL` (`redis://…` or `rediss://…`), or `undefined` when unset. */
export function readRedisUrl(env: Env): string | undefined {
  return readUrl(env, 'REDIS_URL', REDIS_SCHEMES);
}
