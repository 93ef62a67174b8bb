import { registerAs } from '@nestjs/config';
import { type Env, readByteSize, readInteger } from './env.js';

/** `HTTP_BODY_LIMIT`'s default: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Requests a tenant may make per window. */
export interface RateLimitConfig {
  /** `RATE_LIMIT_TTL_MS` (60000): the window. */
  ttlMs: number;
  /** `RATE_LIMIT_MAX` (120): requests per window per tenant. */
  limit: number;
}

/** How the example app serves HTTP: request size, rate limit and shutdown. */
export interface HttpConfig {
  /** `HTTP_BODY_LIMIT` (`1mb`), in bytes: the largest request body accepted. */
  bodyLimitBytes: number;
  /** `SHUTDOWN_TIMEOUT_MS` (10000): how long in-flight work may take to finish at shutdown. */
  shutdownTimeoutMs: number;
  /** The per-tenant rate limit, or `false` when `RATE_LIMIT_MAX=0` turns it off. */
  rateLimit: RateLimitConfig | false;
  /** `HTTP_HEADERS_TIMEOUT_MS` (10000): how long a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT_MS` (30000): how long it may take to send a whole request. */
  requestTimeoutMs: number;
}

/**
 * Reads `HTTP_BODY_LIMIT` (`1mb`; a byte count or `<n>kb` / `<n>mb`), `SHUTDOWN_TIMEOUT_MS`
 * (10000), `RATE_LIMIT_TTL_MS` (60000), `RATE_LIMIT_MAX` (120; 0 turns the limit off),
 * `HTTP_HEADERS_TIMEOUT_MS` (10000) and `HTTP_REQUEST_TIMEOUT_MS` (30000; at least the headers
 * timeout).
 */
export function loadHttpConfig(env: Env = process.env): HttpConfig {
  const ttlMs = readInteger(env, 'RATE_LIMIT_TTL_MS', 60_000, 1, 86_400_000);
  const limit = readInteger(env, 'RATE_LIMIT_MAX', 120, 0, 1_000_000);
  const headersTimeoutMs = readInteger(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  return {
    bodyLimitBytes: readByteSize(env, 'HTTP_BODY_LIMIT', DEFAULT_BODY_LIMIT_BYTES, 1, 1024 ** 3),
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
    rateLimit: limit === 0 ? false : { ttlMs, limit },
    headersTimeoutMs,
    requestTimeoutMs: readInteger(
      env,
      'HTTP_REQUEST_TIMEOUT_MS',
      Math.max(30_000, headersTimeoutMs),
      headersTimeoutMs,
      3_600_000,
    ),
  };
}

/** The `http` config namespace. */
export const httpConfig = registerAs('http', () => loadHttpConfig());
