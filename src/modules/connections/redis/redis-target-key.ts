import { normalizeConnectionUrl } from '../sql/sql-target.js';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-cluster-url.js';

/**
 * The registry's key for a Redis URL, so that spellings of one server (or one cluster) share a
 * client: a server's URL normalized like a database's; a cluster's as
 * `redis+cluster://[user:<digest>@]host:port,…`, each seed normalized the same way (lower-case
 * host, explicit port) and the seeds sorted, so their order does not matter. Credentials appear
 * only as a digest.
 */
export function redisTargetKey(url: string): string {
  if (!isRedisClusterUrl(url)) return normalizeConnectionUrl(url);
  const { nodes, username = '', password, tls } = parseRedisClusterUrl(url);
  const scheme = tls ? 'rediss' : 'redis';
  const auth =
    username || password !== undefined
      ? `${encodeURIComponent(username)}:${encodeURIComponent(password ?? '')}@`
      : '';
  // `redis://[user:<digest>@]host:port` per seed: the credentials part is the same for all.
  const normalized = nodes.map(({ host, port }) =>
    normalizeConnectionUrl(`${scheme}://${auth}${host.includes(':') ? `[${host}]` : host}:${port}`),
  );
  const parts = normalized.map((each) => /^[^/]*\/\/([^@]*@)?(.*)$/.exec(each)!);
  const credentials = parts[0]![1] ?? '';
  const hosts = parts.map((part) => part[2]!);
  return `${scheme}+cluster://${credentials}${[...new Set(hosts)].sort().join(',')}`;
}
