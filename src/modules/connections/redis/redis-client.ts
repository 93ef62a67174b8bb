import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-cluster-url.js';
import { boundClusterOfflineWait, offlineBoundMs } from './bound-cluster-offline-wait.js';

/**
 * An ioredis client the package works with: a single server (`Redis`) or a Redis Cluster
 * (`Cluster`). Every multi-key script of the package touches the keys of one conversation, entity or
 * run, which share a hash tag and therefore a slot.
 */
export type RedisClient = Redis | Cluster;

/** What {@link createRedisClient} needs of the `ioredis` module: `import * as ioredis from 'ioredis'`. */
export interface IoRedisModule {
  Redis: typeof Redis;
  Cluster: typeof Cluster;
}

/** Whether the client talks to a Redis Cluster. */
export function isRedisCluster(client: RedisClient): client is Cluster {
  return client.isCluster;
}

/**
 * Makes an ioredis client for a URL: `redis://…`/`rediss://…` a single server, a
 * `redis+cluster://…` URL a `Cluster` on its seed nodes, every node connection with the URL's
 * credentials and TLS (with TLS, nodes are reached by the names the cluster announces rather than
 * resolved addresses, so certificates issued for those names verify). `options` apply to each
 * server connection; a Cluster's commands also wait through an outage of the whole cluster only
 * as long as `maxRetriesPerRequest` would keep them on a single server (about 10 s by default;
 * forever with `null`, as Bull's blocking clients need).
 */
export function createRedisClient(
  ioredis: IoRedisModule,
  url: string,
  options: RedisOptions = {},
): RedisClient {
  if (!isRedisClusterUrl(url)) return new ioredis.Redis(url, options);
  const { nodes, username, password, tls } = parseRedisClusterUrl(url);
  const { lazyConnect, enableReadyCheck, ...perNode } = options;
  const readyCheck = enableReadyCheck === undefined ? {} : { enableReadyCheck };
  const cluster = new ioredis.Cluster(nodes, {
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...readyCheck,
    // ioredis connects to resolved addresses unless told otherwise, which fails TLS hostname checks
    // (its README: "Special Note: AWS ElastiCache Clusters with TLS").
    ...(tls ? { dnsLookup: (address, found) => found(null, address) } : {}),
    redisOptions: {
      ...perNode,
      ...readyCheck,
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
      ...(tls ? { tls: {} } : {}),
    },
  });
  const bound = offlineBoundMs(options.maxRetriesPerRequest);
  if (bound !== undefined) boundClusterOfflineWait(cluster, bound);
  return cluster;
}
