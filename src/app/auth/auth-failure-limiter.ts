import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { httpConfig } from '../../config/http.config.js';
import { AppRedis } from '../redis/app-redis.provider.js';

/** Addresses tracked at most in process memory (the oldest window goes first). */
const MAX_TRACKED = 10_000;

/** KEYS[1] the counter; ARGV window ms. Counts one failure; returns { count, window ms left }. */
const FAIL = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { count, redis.call('PTTL', KEYS[1]) }
`;

/**
 * Counts failed authentications per client address: past `AUTH_FAILURES_MAX` in a minute, every
 * request of that address — with a valid key or not — is answered 429 with `Retry-After` until the
 * minute ends, so keys cannot be guessed faster than that. Counted in Redis when the app has one
 * (the limit holds across instances), else in process memory (bounded).
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly local = new Map<string, { count: number; resetAt: number }>();

  constructor(
    @Inject(httpConfig.KEY) private readonly http: ConfigType<typeof httpConfig>,
    private readonly redis: AppRedis,
  ) {}

  /**
   * When the address is blocked: sets `Retry-After` (seconds) on the response and resolves the 429's
   * body; `undefined` when it may try.
   */
  async refusal(
    address: string | undefined,
    response: { setHeader(name: string, value: string): unknown },
  ): Promise<AuthFailuresBody | undefined> {
    const limit = this.http.authFailureLimit;
    if (!limit) return undefined;
    const { count, leftMs } = await this.read(address);
    if (count < limit.limit) return undefined;
    response.setHeader('retry-after', String(Math.max(1, Math.ceil(leftMs / 1000))));
    return {
      statusCode: HttpStatus.TOO_MANY_REQUESTS,
      error: 'Too Many Requests',
      message: 'Too many failed authentications from this address: try again later',
    };
  }

  /** Counts one failed authentication of the address. */
  async recordFailure(address: string | undefined): Promise<void> {
    const limit = this.http.authFailureLimit;
    if (!limit) return;
    const key = `agent-memory:auth-failures:${address ?? 'unknown'}`;
    if (this.redis.client) {
      await this.redis.client.eval(FAIL, 1, key, limit.ttlMs);
      return;
    }
    const now = Date.now();
    const entry = this.local.get(key);
    if (entry && entry.resetAt > now) entry.count += 1;
    else {
      this.local.delete(key);
      this.local.set(key, { count: 1, resetAt: now + limit.ttlMs });
      while (this.local.size > MAX_TRACKED) this.local.delete(this.local.keys().next().value!);
    }
  }

  private async read(address: string | undefined): Promise<{ count: number; leftMs: number }> {
    const key = `agent-memory:auth-failures:${address ?? 'unknown'}`;
    if (this.redis.client) {
      const [count, leftMs] = await Promise.all([
        this.redis.client.get(key),
        this.redis.client.pttl(key),
      ]);
      return { count: Number(count ?? 0), leftMs };
    }
    const entry = this.local.get(key);
    const now = Date.now();
    return entry && entry.resetAt > now
      ? { count: entry.count, leftMs: entry.resetAt - now }
      : { count: 0, leftMs: 0 };
  }
}

/** The body of the 429 a blocked address gets. */
export interface AuthFailuresBody {
  statusCode: number;
  error: string;
  message: string;
}

/** The 429 as an exception, for guards. */
export function tooManyFailures(body: AuthFailuresBody): HttpException {
  return new HttpException(body, HttpStatus.TOO_MANY_REQUESTS);
}
