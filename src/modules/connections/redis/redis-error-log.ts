import type { LoggerService } from '@nestjs/common';
import type { RedisClient } from './redis-client.js';
import { RateLimit } from '../../../common/rate-limit.js';

/** At most one line per client in this window; the rest are counted into the next line. */
const WINDOW_MS = 10_000;

/**
 * Gives a Redis client the package made an `error` listener that logs through Nest's logger,
 * rate-limited, naming the connection by its label. Without one, ioredis prints every failed
 * reconnect to stderr as an unhandled error event during an outage.
 */
export function logRedisErrors(
  client: RedisClient,
  label: string,
  logger: Pick<LoggerService, 'warn'>,
): void {
  const limit = new RateLimit(WINDOW_MS);
  client.on('error', (error: Error) => {
    const suppressed = limit.suppressed;
    if (!limit.due()) return;
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    logger.warn(`Redis connection ${label}: ${error.message}${more}`);
  });
}
