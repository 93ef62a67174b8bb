import type { LoggerService } from '@nestjs/common';
import type { RedisClient } from './redis-client.js';
import { RateLimit } from '../../../common/rate-limit.js';

/** At most one line per client in this window; the rest are counted into the next line. */
const WINDOW_MS = 10_000;

/**
 * Gives a Redis client an `error` listener that logs through Nest's logger, rate-limited (a line
 * per 10 s at most, counting the rest), naming the connection by its label. Without one, ioredis
 * prints every failed reconnect to stderr as an unhandled error event during an outage. The
 * package gives every client it makes one; give yours one too (`createRedisClient` makes none).
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
