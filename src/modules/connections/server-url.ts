import { addressProblem, schemesOf } from './store-uri.js';
import { isRedisClusterUrl, redisClusterUrlProblem } from './redis/redis-cluster-url.js';

/**
 * What is wrong with a server URL given to a module's `url` option for a backend, or `undefined`
 * when it will do: not a URL, another backend's scheme, a Redis Cluster URL with a path, or — on
 * PostgreSQL and MariaDB/MySQL — where it points (`addressProblem`: no host, where the driver would
 * default one and fail on what it guessed, unless a PostgreSQL URL names its Unix socket). A Redis
 * URL without a host is localhost, as ioredis reads it.
 */
export function serverUrlProblem(
  url: string,
  backend: 'postgres' | 'mysql' | 'redis',
): string | undefined {
  const schemes = schemesOf(backend);
  if (backend === 'redis' && isRedisClusterUrl(url)) return redisClusterUrlProblem(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `must be a valid ${backend} URL (${schemes.join('//…, ')}//…)`;
  }
  const { protocol } = parsed;
  if (!schemes.includes(protocol))
    return `must start with ${schemes.join(' or ')} for the ${backend} backend, got "${protocol}"`;
  return backend === 'redis' ? undefined : addressProblem(parsed);
}
