import { HttpException, HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { normalizeIp } from '@nestjs/throttler';
import { httpConfig } from '../../config/http.config.js';
import { AppRedis } from '../redis/app-redis.provider.js';
import { type HeaderTarget, setResponseHeader } from '../http-server/response-header.js';

/** Addresses tracked at most in process memory (the oldest window goes first). */
const MAX_TRACKED = 10_000;

/** KEYS[1] the counter; ARGV window ms. Counts one attempt; returns { count, window ms left }. */
const ATTEMPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }
`;

/** KEYS[1] the counter. Takes one attempt back, if the window still runs. */
const REFUND = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** The body of the 429 a blocked address gets. */
export interface AuthFailuresBody {
  statusCode: number;
  error: string;
  message: string;
}

/** What an attempt to authenticate may do: go on (then settle it), or be refused now. */
export type AuthAttempt =
  { refused: AuthFailuresBody } | { refused?: undefined; settle(succeeded: boolean): void };

/**
 * Counts failed authentications per client address (IPv6 grouped by /64, as the throttler does):
 * past `AUTH_FAILURES_MAX` in a minute, every request of that address that presents a key — valid or
 * not — is answered 429 with `Retry-After` until the minute ends, so keys cannot be guessed faster.
 * Each attempt is counted atomically before its key is compared and refunded when the key is valid,
 * so concurrent guesses cannot slip past the limit. Counted in Redis when the app has one (the limit
 * holds across instances), else in process memory (bounded). If Redis fails, attempts are let
 * through (logged): the keys still decide.
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly logger = new Logger('AuthFailures');
  private readonly local = new Map<string, { count: number; resetAt: number }>();

  constructor(
    @Inject(httpConfig.KEY) private readonly http: ConfigType<typeof httpConfig>,
    private readonly redis: AppRedis,
  ) {}

  /**
   * Starts an attempt of `address` (a request that presents a key). When refused, `Retry-After` is
   * already set on the response.
   */
  async attempt(address: string | undefined, response: HeaderTarget): Promise<AuthAttempt> {
    const limit = this.http.authFailureLimit;
    if (!limit) return { settle: () => undefined };
    const key = `${this.redis.keyPrefix}auth-failures:${address ? normalizeIp(address) : 'unknown'}`;
    let counted: { count: number; leftMs: number };
    try {
      counted = await this.count(key, limit.ttlMs);
    } catch (error) {
      this.logger.warn(`Failed authentications not counted: ${(error as Error).message}`);
      return { settle: () => undefined };
    }
    const refund = (succeeded: boolean) => {
      if (succeeded) void this.refund(key);
    };
    if (counted.count <= limit.limit) return { settle: refund };
    refund(true); // a refused attempt is not one more failure
    setResponseHeader(
      response,
      'retry-after',
      String(Math.max(1, Math.ceil(counted.leftMs / 1000))),
    );
    return {
      refused: {
        statusCode: HttpStatus.TOO_MANY_REQUESTS,
        error: 'Too Many Requests',
        message: 'Too many failed authentications from this address: try again later',
      },
    };
  }

  private async count(key: string, windowMs: number): Promise<{ count: number; leftMs: number }> {
    if (this.redis.client) {
      const [count, leftMs] = (await this.redis.client.eval(ATTEMPT, 1, key, windowMs)) as [
        number,
        number,
      ];
      return { count, leftMs };
    }
    const now = Date.now();
    const entry = this.local.get(key);
    if (entry && entry.resetAt > now) {
      entry.count += 1;
      return { count: entry.count, leftMs: entry.resetAt - now };
    }
    this.local.delete(key);
    this.local.set(key, { count: 1, resetAt: now + windowMs });
    while (this.local.size > MAX_TRACKED) this.local.delete(this.local.keys().next().value!);
    return { count: 1, leftMs: windowMs };
  }

  private async refund(key: string): Promise<void> {
    if (!this.redis.client) {
      const entry = this.local.get(key);
      if (entry) entry.count -= 1;
      return;
    }
    await this.redis.client.eval(REFUND, 1, key).catch((error: unknown) => {
      this.logger.warn(`Attempt not refunded: ${(error as Error).message}`);
    });
  }
}

/** The 429 as an exception, for guards. */
export function tooManyFailures(body: AuthFailuresBody): HttpException {
  return new HttpException(body, HttpStatus.TOO_MANY_REQUESTS);
}
