import type { DestinationStream } from 'pino';

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** A pino line, as far as the readable form shows it. */
interface LogLine {
  level: number;
  time: number;
  msg?: string;
  context?: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

/**
 * A pino destination that writes each JSON line as one readable line — `12:04:05.123 INFO
 * [App] message`, the request (`GET /path`) and an error's message after it — for a developer's
 * terminal (`LOG_FORMAT=pretty`, the default on a TTY). A line it cannot parse goes out as it came.
 */
export function prettyLogStream(out: { write(text: string): unknown }): DestinationStream {
  return {
    write(json: string): void {
      let line: LogLine;
      try {
        line = JSON.parse(json) as LogLine;
      } catch {
        out.write(json);
        return;
      }
      const time = new Date(line.time).toISOString().slice(11, 23);
      const level = (LEVEL_NAMES[line.level] ?? String(line.level)).padEnd(5);
      const context = line.context ? ` [${line.context}]` : '';
      const request = line.req ? ` (${line.req.method} ${line.req.url})` : '';
      const outcome = line.res ? ` ${line.res.statusCode} in ${line.responseTime ?? '?'} ms` : '';
      const error =
        line.err?.message && line.err.message !== line.msg ? `: ${line.err.message}` : '';
      // An error's stack (a 500, a failed job) on the lines below, as Nest's own logger shows it.
      const stack = line.level >= 50 && line.err?.stack ? `\n${line.err.stack}` : '';
      out.write(
        `${time} ${level}${context} ${line.msg ?? ''}${error}${outcome}${request}${stack}\n`,
      );
    },
  };
}
