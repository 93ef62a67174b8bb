import { registerAs } from '@nestjs/config';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readByteSize, readChoice, readInteger, readString } from './env.js';

/** `HTTP_BODY_LIMIT`'s default: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** Requests a tenant may make per window. */
export interface RateLimitConfig {
  /** `RATE_LIMIT_TTL_MS` (60000): the window. */
  ttlMs: number;
  /** `RATE_LIMIT_MAX` (120): requests per window per tenant. */
  limit: number;
}

/** The HTTP platforms the example app runs on. */
export const HTTP_ADAPTERS = ['fastify', 'express'] as const;

/** How the example app serves HTTP: platform, request size, rate limit and shutdown. */
export interface HttpConfig {
  /** `HTTP_ADAPTER` (`fastify`): Nest's HTTP platform, `@nestjs/platform-fastify` or `-express`. */
  adapter: (typeof HTTP_ADAPTERS)[number];
  /** `HTTP_BODY_LIMIT` (`1mb`), in bytes: the largest request body accepted. */
  bodyLimitBytes: number;
  /** `SHUTDOWN_TIMEOUT_MS` (10000): how long in-flight work may take to finish at shutdown. */
  shutdownTimeoutMs: number;
  /** The per-tenant rate limit across all routes, or `false` when `RATE_LIMIT_MAX=0` turns it off. */
  rateLimit: RateLimitConfig | false;
  /**
   * The per-tenant budget of the routes that call the model (turns, chat, queued turns), in the same
   * window: `RATE_LIMIT_TURNS_MAX` (20; 0 turns it off, and so does `RATE_LIMIT_MAX=0`).
   */
  turnsRateLimit: RateLimitConfig | false;
  /**
   * Failed authentications per client address per minute before every request of that address is
   * answered 429 for the rest of the minute: `AUTH_FAILURES_MAX` (20; 0 turns it off).
   */
  authFailureLimit: RateLimitConfig | false;
  /** `HTTP_HEADERS_TIMEOUT_MS` (10000): how long a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /** `HTTP_REQUEST_TIMEOUT_MS` (30000): how long it may take to send a whole request. */
  requestTimeoutMs: number;
  /**
   * `HTTP_SEND_TIMEOUT_MS` (10000; 0: off): how long a client may leave an answer unread (bytes
   * waiting, none taken) before its connection is cut and the answer's memory released.
   */
  sendTimeoutMs: number;
  /**
   * `HTTP_KEEP_ALIVE_TIMEOUT_MS` (72000, Fastify's own default): how long a kept-alive connection
   * may wait idle for its next request. Keep it above the idle timeout of any proxy in front of the
   * app (60 s on many), or the proxy may send a request on a connection the app is closing.
   */
  keepAliveTimeoutMs: number;
  /** `HTTP_PAGE_BYTES` (`1mb`): most bytes of JSON one page of a list holds. */
  pageBytes: number;
  /** `ALLOWED_HOSTS` (none): host names served besides loopback ones (comma-separated). */
  allowedHosts: string[];
  /**
   * `TRUST_PROXY` (none): which proxies in front of the app to believe about the client's address
   * (`X-Forwarded-For`), as Express's `trust proxy` takes it: a number of hops, or addresses and
   * subnets (`loopback`, `10.0.0.0/8`, …). Unset: the connecting address is the client.
   */
  trustProxy?: number | string;
}

/**
 * Reads `HTTP_ADAPTER` (`fastify`), `HTTP_BODY_LIMIT` (`1mb`; a byte count or `<n>kb` / `<n>mb`), `SHUTDOWN_TIMEOUT_MS`
 * (10000), `RATE_LIMIT_TTL_MS` (60000), `RATE_LIMIT_MAX` (120; 0 turns the limit off),
 * `RATE_LIMIT_TURNS_MAX` (20; 0: off), `AUTH_FAILURES_MAX` (20 a minute; 0: off),
 * `HTTP_HEADERS_TIMEOUT_MS` (10000), `HTTP_REQUEST_TIMEOUT_MS` (30000; at least the headers
 * timeout), `HTTP_SEND_TIMEOUT_MS` (10000; 0: off), `HTTP_KEEP_ALIVE_TIMEOUT_MS` (72000),
 * `HTTP_PAGE_BYTES` (`1mb`) and `ALLOWED_HOSTS` (none).
 */
export function loadHttpConfig(env: Env = process.env): HttpConfig {
  const ttlMs = readInteger(env, 'RATE_LIMIT_TTL_MS', 60_000, 1, 86_400_000);
  const limit = readInteger(env, 'RATE_LIMIT_MAX', 120, 0, 1_000_000);
  const turnsLimit = readInteger(env, 'RATE_LIMIT_TURNS_MAX', 20, 0, 1_000_000);
  const authFailures = readInteger(env, 'AUTH_FAILURES_MAX', 20, 0, 1_000_000);
  const headersTimeoutMs = readInteger(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  return {
    adapter: readChoice(env, 'HTTP_ADAPTER', HTTP_ADAPTERS, 'fastify'),
    bodyLimitBytes: readByteSize(env, 'HTTP_BODY_LIMIT', DEFAULT_BODY_LIMIT_BYTES, 1, 1024 ** 3),
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
    rateLimit: limit === 0 ? false : { ttlMs, limit },
    // `RATE_LIMIT_MAX=0` turns every rate limit off, the model routes' budget included.
    turnsRateLimit: limit === 0 || turnsLimit === 0 ? false : { ttlMs, limit: turnsLimit },
    authFailureLimit: authFailures === 0 ? false : { ttlMs: 60_000, limit: authFailures },
    headersTimeoutMs,
    requestTimeoutMs: readInteger(
      env,
      'HTTP_REQUEST_TIMEOUT_MS',
      Math.max(30_000, headersTimeoutMs),
      headersTimeoutMs,
      3_600_000,
    ),
    sendTimeoutMs: readNonZeroMin(
      'HTTP_SEND_TIMEOUT_MS',
      readInteger(env, 'HTTP_SEND_TIMEOUT_MS', 10_000, 0, 3_600_000),
      1_000,
    ),
    keepAliveTimeoutMs: readInteger(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000),
    pageBytes: readByteSize(env, 'HTTP_PAGE_BYTES', DEFAULT_BODY_LIMIT_BYTES, 1024, 1024 ** 3),
    allowedHosts: readAllowedHosts(env),
    ...readTrustProxy(env),
  };
}

/** A value that is 0 (off) or at least `min`. */
function readNonZeroMin(variable: string, value: number, min: number): number {
  if (value !== 0 && value < min)
    throw new ConfigValidationError(variable, `must be 0 (off) or at least ${min}, got ${value}`);
  return value;
}

const PROXY_ENTRY = /^(?:loopback|linklocal|uniquelocal|[0-9a-f:.]+(?:\/\d{1,3})?)$/i;

/** `TRUST_PROXY`: a hop count, or comma-separated addresses, subnets and Express's names. */
function readTrustProxy(env: Env): { trustProxy?: number | string } {
  const raw = readString(env, 'TRUST_PROXY');
  if (raw === undefined) return {};
  if (/^\d{1,2}$/.test(raw)) return { trustProxy: Number(raw) };
  const entries = raw.split(',').map((entry) => entry.trim());
  if (!entries.every((entry) => PROXY_ENTRY.test(entry)))
    throw new ConfigValidationError(
      'TRUST_PROXY',
      'must be a number of hops or comma-separated addresses and subnets (loopback, 10.0.0.0/8, …)',
    );
  return { trustProxy: entries.join(',') };
}

const HOST_NAME =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/i;

/** `ALLOWED_HOSTS`: comma-separated host names (no port, no scheme). */
function readAllowedHosts(env: Env): string[] {
  const raw = readString(env, 'ALLOWED_HOSTS');
  if (raw === undefined) return [];
  return raw.split(',').map((entry, index) => {
    const name = entry.trim().toLowerCase();
    if (!HOST_NAME.test(name))
      throw new ConfigValidationError(
        'ALLOWED_HOSTS',
        `entry ${index + 1} is not a host name (expected names such as memory.example.com, comma-separated, without port or scheme)`,
      );
    return name;
  });
}

/** The `http` config namespace. */
export const httpConfig = registerAs('http', () => loadHttpConfig());
