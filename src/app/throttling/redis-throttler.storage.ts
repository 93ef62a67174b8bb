import type { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisClient } from 'nest-agent-memory';

/**
 * One fixed window per key: count the hit, start the window on the first, and block for
 * `blockDuration` once the count passes the limit. Returns hits, window ms left, block ms left.
 */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local windowLeft = redis.call('PTTL', KEYS[1])
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft <= 0 and hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blockLeft = tonumber(ARGV[3])
end
return { hits, windowLeft, blockLeft }
`;

/**
 * `@nestjs/throttler` storage on Redis, so a tenant's limit holds across app instances: one atomic
 * script per request (no read-then-write race between instances).
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'agent-memory:throttle:',
  ) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ) {
    // Both keys of a counter share a hash tag, so the script runs on a Redis Cluster too (the
    // keys are `<budget>:tenant:<id>` or `<budget>:ip:<address>`: no braces).
    const base = `${this.prefix}${throttlerName}:{${key}}`;
    const [hits, windowLeft, blockLeft] = (await this.redis.eval(
      INCREMENT,
      2,
      `${base}:hits`,
      `${base}:block`,
      ttl,
      limit,
      blockDuration || ttl,
    )) as [number, number, number];
    return {
      totalHits: hits,
      timeToExpire: Math.max(0, Math.ceil(windowLeft / 1000)),
      isBlocked: blockLeft > 0,
      timeToBlockExpire: Math.max(0, Math.ceil(blockLeft / 1000)),
    };
  }
}
