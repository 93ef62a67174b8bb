import { randomUUID } from 'node:crypto';
import { registerAs } from '@nestjs/config';
import type { LevelWithSilent } from 'pino';
import { type Env, readBoolean, readChoice } from './env.js';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const FORMATS = ['json', 'pretty'] as const;

/** Request and response headers that carry credentials: logged as `[redacted]`. */
export const REDACTED_HEADERS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
] as const;

/** The app's logging: its level, and whether every request gets a line when it ends. */
export interface LoggingConfig {
  /** `LOG_LEVEL` (`info`). */
  level: LevelWithSilent;
  /** `LOG_HTTP` (`false`): one line per request, with its status and duration. */
  requestLines: boolean;
  /**
   * `LOG_FORMAT`: `json` (pino JSON lines, for log collectors) or `pretty` (one readable line per
   * entry: time, level, context, message). Default: `pretty` when stdout is a terminal, else `json`.
   */
  format?: 'json' | 'pretty';
}

/** Logging settings from `LOG_LEVEL`, `LOG_HTTP` and `LOG_FORMAT`. */
export function loadLoggingConfig(env: Env = process.env): LoggingConfig {
  return {
    level: readChoice(env, 'LOG_LEVEL', LEVELS, 'info'),
    requestLines: readBoolean(env, 'LOG_HTTP', false),
    format: readChoice(env, 'LOG_FORMAT', FORMATS, process.stdout.isTTY ? 'pretty' : 'json'),
  };
}

/** A request's id: the caller's `X-Request-Id` when it sends a sane one, else a new UUID. */
export function requestIdOf(request: {
  headers: Record<string, string | string[] | undefined>;
}): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** The `logging` config namespace. */
export const loggingConfig = registerAs('logging', () => loadLoggingConfig());
