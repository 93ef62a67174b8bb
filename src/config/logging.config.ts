import { registerAs } from '@nestjs/config';
import type { Params } from 'nestjs-pino';
import { type Env, readBoolean, readChoice } from './env.js';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Request and response headers that carry credentials: logged as `[redacted]`. */
export const REDACTED_HEADERS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
] as const;

/**
 * `nestjs-pino` settings from `LOG_LEVEL` (`info`) and `LOG_HTTP` (`false`: one line per request),
 * with credential headers redacted.
 */
export function loadLoggingConfig(env: Env = process.env): Params {
  return {
    pinoHttp: {
      level: readChoice(env, 'LOG_LEVEL', LEVELS, 'info'),
      autoLogging: readBoolean(env, 'LOG_HTTP', false),
      redact: { paths: [...REDACTED_HEADERS], censor: '[redacted]' },
    },
  };
}

/** The `logging` config namespace. */
export const loggingConfig = registerAs('logging', () => loadLoggingConfig());
