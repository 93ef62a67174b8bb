import type { Cluster } from 'ioredis';

/** ioredis's default for a single server's `maxRetriesPerRequest`. */
const DEFAULT_RETRIES = 20;

/**
 * How long a single server's client keeps a command through an outage: `retries` reconnection
 * attempts at ioredis's default delays (50 ms × attempt, at most 2 s each); 10.5 s for the default
 * 20, `undefined` (no bound) for `null`.
 */
export function offlineBoundMs(retries: number | null | undefined): number | undefined {
  if (retries === null) return undefined;
  let total = 0;
  for (let attempt = 1; attempt <= (retries ?? DEFAULT_RETRIES); attempt += 1)
    total += Math.min(attempt * 50, 2_000);
  return Math.max(total, 50);
}

/**
 * A Cluster's commands wait in ioredis's offline queue for as long as no node can be reached,
 * however long that is: a request would hang through a whole cluster outage, where a single
 * server's client gives up after `maxRetriesPerRequest` attempts. This gives the Cluster the same
 * bound: while it is down, every `boundMs` the commands it queued fail with an error saying so, so
 * each fails within `boundMs` of being sent (sooner when it was sent late in an interval). Once the
 * cluster is ready again, or the client is closed, nothing is flushed any more.
 */
export function boundClusterOfflineWait(cluster: Cluster, boundMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  const down = () => {
    timer ??= setInterval(() => {
      // ioredis's own way of failing the queue (as when it gives up); not part of its typings.
      (cluster as unknown as { flushQueue(error: Error): void }).flushQueue(
        new Error(`Redis Cluster unreachable: no node answered within ${boundMs} ms`),
      );
      // A client closed during the outage stays `disconnecting` (ioredis emits no `end` then).
      if (cluster.status === 'disconnecting' || cluster.status === 'end') up();
    }, boundMs).unref();
  };
  const up = () => {
    clearInterval(timer);
    timer = undefined;
  };
  cluster.on('close', down);
  cluster.on('reconnecting', down);
  cluster.on('ready', up);
  cluster.on('end', up);
}
