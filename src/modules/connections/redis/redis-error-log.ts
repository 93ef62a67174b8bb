import type { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';

/** At most one line per client in this window; the rest are counted into the next line. */
const WINDOW_MS = 10_000;

/**
 * Gives a Redis client the package made an `error` listener that logs through Nest's logger,
 * rate-limited, naming the connection by its label. Without one, ioredis prints every failed
 * reconnect to stderr as an unhandled error event during an outage.
 */
export function logRedisErrors(client: Redis, label: string, logger: Logger): void {
  let last = 0;
  let suppressed = 0;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - last < WINDOW_MS) {
      suppressed += 1;
      return;
    }
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    last = now;
    suppressed = 0;
    logger.warn(`Redis connection ${label}: ${error.message}${more}`);
  });
}
