import { normalizeConnectionUrl } from '../sql/sql-target.js';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-cluster-url.js';

/**
 * The registry's key for a Redis URL, so that spellings of one server (or one cluster) share a
 * client: a server's URL normalized like a database's; a cluster's seed nodes each normalized as a
 * `redis://` (or `rediss://`) URL with the credentials, sorted, so their order does not matter.
 * Credentials appear only as a digest.
 */
export function redisTargetKey(url: string): string {
  if (!isRedisClusterUrl(url)) return normalizeConnectionUrl(url);
  const { nodes, username = '', password, tls } = parseRedisClusterUrl(url);
  const scheme = tls ? 'rediss' : 'redis';
  const auth =
    username || password !== undefined
      ? `${encodeURIComponent(username)}:${encodeURIComponent(password ?? '')}@`
      : '';
  const keys = nodes.map(({ host, port }) =>
    normalizeConnectionUrl(`${scheme}://${auth}${host.includes(':') ? `[${host}]` : host}:${port}`),
  );
  return `${scheme}+cluster://${[...new Set(keys)].sort().join(',')}`;
}
