import type { Logger } from 'pino';

/** What a start-up error carries that says what failed. */
interface SystemError extends Error {
  code?: string;
  address?: string;
  port?: number;
  errors?: unknown[];
}

/** The variables that name each kind of server the app connects to. */
const WHERE = 'DATABASE_URL, LONGTERM_MEMORY_URI or REDIS_URL';

/**
 * One sentence for a failed start the app recognizes by its code: what failed and what to do — a
 * port in use, a server that does not answer (refused, unknown host, timed out), refused
 * credentials, a missing database; `undefined` for any other failure.
 */
function recognizedFailure(error: unknown, port?: number): string | undefined {
  const failure = (error instanceof AggregateError ? error.errors[0] : error) as SystemError;
  const code = failure?.code ?? (error as SystemError)?.code;
  const at = failure?.address
    ? ` to ${failure.address}${failure.port ? `:${failure.port}` : ''}`
    : '';
  switch (code) {
    case 'EADDRINUSE':
      return `Port ${failure.port ?? port} is already in use: stop what listens on it, or set PORT to a free port.`;
    case 'EACCES':
      return `Not allowed to listen on port ${failure.port ?? port}: use a port above 1023 (PORT).`;
    case 'ECONNREFUSED':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `Could not connect${at} (${code}): start that server, or fix ${WHERE}.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Unknown host${hostOf(failure)} (${code}): fix ${WHERE}.`;
    case '28P01':
    case 'ER_ACCESS_DENIED_ERROR':
      return `The database refused the credentials (${code}): fix the user or password in ${WHERE}.`;
    case '3D000':
    case 'ER_BAD_DB_ERROR': {
      // PostgreSQL: database "x" does not exist; MariaDB/MySQL: Unknown database 'x'.
      const named = /database "([^"]+)" does not exist|Unknown database '([^']+)'/i.exec(
        failure?.message ?? '',
      );
      const name = named?.[1] ?? named?.[2];
      return `The database ${name ? `"${name}"` : 'the URL names'} does not exist (${code}): create it, or fix ${WHERE}.`;
    }
    default:
      return undefined;
  }
}

/** The line of a failure the app does not recognize (a bug, say): the error's own message. */
function unrecognizedFailure(error: unknown): string {
  return `Start-up failed: ${(error as Error)?.message ?? String(error)}`;
}

/**
 * Logs a failed start as one line in the app's log format (`fatal`, the error's code and message;
 * its stack for a failure the app does not recognize — a bug, say — else only at `LOG_LEVEL=debug`
 * or finer) and exits with code 1.
 */
export function exitOnStartupFailure(logger: Logger, error: unknown, port?: number): never {
  const failure = error as SystemError;
  const recognized = recognizedFailure(error, port);
  const withStack = logger.isLevelEnabled('debug') || recognized === undefined;
  const cause = {
    type: failure?.name ?? 'Error',
    message: failure?.message ?? String(error),
    ...(failure?.code ? { code: failure.code } : {}),
    ...(withStack && failure?.stack ? { stack: failure.stack } : {}),
  };
  logger.fatal({ context: 'App', error: cause }, recognized ?? unrecognizedFailure(error));
  logger.flush?.();
  process.exit(1);
}

function hostOf(error: SystemError): string {
  const host = (error as { hostname?: unknown }).hostname;
  return typeof host === 'string' ? ` ${host}` : '';
}
