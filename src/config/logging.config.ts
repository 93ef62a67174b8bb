import { randomUUID } from 'node:crypto';
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
      // Request lines name the request (id, method, URL), never its headers or body: cheaper on
      // every request, and nothing a client sends (credentials, message contents) reaches the log.
      serializers: {
        req: (request: { id: unknown; method: string; url: string }) => ({
          id: request.id,
          method: request.method,
          url: request.url,
        }),
      },
      // Each request's id: the caller's `X-Request-Id` when it sends a sane one, else a new UUID;
      // echoed in the response and on every log line of the request.
      genReqId: (request, response) => {
        const given = request.headers['x-request-id'];
        const id =
          typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
        response.setHeader('X-Request-Id', id);
        return id;
      },
    },
  };
}

/** The `logging` config namespace. */
export const loggingConfig = registerAs('logging', () => loadLoggingConfig());
