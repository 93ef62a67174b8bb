import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService, LogLevel as NestLogLevel } from '@nestjs/common';
import { type DestinationStream, pino, type Level, type Logger } from 'pino';
import { type LoggingConfig, REDACTED_HEADERS } from '../../config/logging.config.js';
import { prettyLogStream } from './pretty-log-stream.js';

/** What each line logged while a request is served says of it: never its headers or body. */
export interface RequestLogFields {
  id: string;
  method: string;
  url: string;
}

/** The request being served, for the `req` field of the lines logged meanwhile. */
export const requestLogContext = new AsyncLocalStorage<RequestLogFields>();

/**
 * The app's one pino logger: JSON lines on stdout at `LOG_LEVEL`, credential headers redacted, and
 * on every line logged while a request is served, `req: { id, method, url }` — added when a line is
 * written (a pino `mixin`), so a request that logs nothing costs no child logger. With
 * `format: 'pretty'`, readable lines instead (`prettyLogStream`). `destination` replaces stdout.
 */
export function createRootLogger(config: LoggingConfig, destination?: DestinationStream): Logger {
  destination ??= config.format === 'pretty' ? prettyLogStream(process.stdout) : undefined;
  const options = {
    level: config.level,
    redact: { paths: [...REDACTED_HEADERS], censor: '[redacted]' },
    mixin: () => {
      const req = requestLogContext.getStore();
      return req ? { req } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

const LEVEL_OF: Record<NestLogLevel, Level> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/**
 * Nest's logger (`app.useLogger`) over the app's pino logger, in the shape of `nestjs-pino`'s lines:
 * `{ context, msg }`, an `Error` as `err`, an object's fields merged into the line, Nest's
 * `error(message, stack, context)` as `err: { message, stack }`, and any other arguments as
 * `params` (a message is never read as a format string).
 */
export class AppLogger implements LoggerService {
  constructor(
    readonly pino: Logger,
    private readonly options: { bootstrapErrorsAtDebug?: boolean } = {},
  ) {}

  /** Logs at `info`. */
  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  /** Logs at `error`. */
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  /** Logs at `warn`. */
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  /** Logs at `debug`. */
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  /** Logs at `trace`. */
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  /** Logs at `fatal`. */
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(nestLevel: NestLogLevel, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(LEVEL_OF[nestLevel])) return;
    // Nest passes a logger's context last, and `error(message, stack?, context?)` a stack first;
    // a logger with a context but no stack passes `undefined` in its place.
    const rest = params.filter((param) => param !== undefined);
    const stack = nestLevel === 'error' && isStack(rest[0]) ? (rest.shift() as string) : undefined;
    const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
    const level = this.levelOf(nestLevel, context);
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    if (message instanceof Error) fields.err = message;
    else if (typeof message === 'object' && message !== null) Object.assign(fields, message);
    else if (stack !== undefined) {
      const err = new Error(String(message));
      err.stack = stack;
      fields.err = err;
    } else {
      // The message as it is: never a format string, whatever `%` it holds.
      fields.msg = String(message);
    }
    if (rest.length > 0) fields.params = rest;
    this.pino[level](fields);
  }

  /**
   * The pino level of a line. With `bootstrapErrorsAtDebug`, Nest's `ExceptionHandler` errors go
   * at `debug`: Nest logs a failed start there (with its stack) before throwing it to the app, which
   * logs it as its one `fatal` line; that context logs nothing else.
   */
  private levelOf(nestLevel: NestLogLevel, context: string | undefined): Level {
    return this.options.bootstrapErrorsAtDebug &&
      nestLevel === 'error' &&
      context === 'ExceptionHandler'
      ? 'debug'
      : LEVEL_OF[nestLevel];
  }
}

function isStack(value: unknown): boolean {
  return typeof value === 'string' && /\n\s+at /.test(value);
}
