import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { AppLogger, createRootLogger } from './app-logger.js';

function logger(level: 'info' | 'trace' = 'info', options = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return {
    lines,
    app: new AppLogger(createRootLogger({ level, requestLines: false }, stream), options),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('AppLogger (Nest’s logger over pino)', () => {
  it('writes Nest’s calls as JSON lines: context, level, an Error as err, an object’s fields', async () => {
    const { lines, app } = logger('trace');
    app.log('listening', 'App');
    app.warn('careful');
    app.verbose('details', 'Router');
    app.debug({ rows: 3 }, 'Store');
    app.error(new Error('boom'), 'Filter');
    const failure = new Error('inner');
    app.error('Request failed', failure.stack, 'Http');
    app.fatal('down', 'App');
    await settle();
    expect(lines.map(({ level, context, msg }) => [level, context, msg])).toEqual([
      [30, 'App', 'listening'],
      [40, undefined, 'careful'],
      [10, 'Router', 'details'],
      [20, 'Store', undefined],
      [50, 'Filter', 'boom'],
      [50, 'Http', 'Request failed'],
      [60, 'App', 'down'],
    ]);
    expect(lines[3]).toMatchObject({ rows: 3 });
    expect(lines[4]).toMatchObject({ err: { message: 'boom', type: 'Error' } });
    expect(lines[5]).toMatchObject({ err: { message: 'Request failed', stack: failure.stack } });
  });

  it('with bootstrapErrorsAtDebug, Nest’s ExceptionHandler errors go at debug (the app logs the fatal line)', async () => {
    const failure = new Error('no database');
    const quiet = logger('info', { bootstrapErrorsAtDebug: true });
    quiet.app.error('no database', failure.stack, 'ExceptionHandler');
    quiet.app.error('Request failed', failure.stack, 'ExceptionsHandler');
    const detailed = logger('trace', { bootstrapErrorsAtDebug: true });
    detailed.app.error('no database', failure.stack, 'ExceptionHandler');
    const plain = logger('info');
    plain.app.error('no database', failure.stack, 'ExceptionHandler');
    await settle();
    // A request's error is not Nest's bootstrap report: it stays an error.
    expect(quiet.lines.map(({ level, context }) => [level, context])).toEqual([
      [50, 'ExceptionsHandler'],
    ]);
    expect(detailed.lines.map(({ level, context }) => [level, context])).toEqual([
      [20, 'ExceptionHandler'],
    ]);
    expect(detailed.lines[0]).toMatchObject({ err: { message: 'no database' } });
    expect(plain.lines.map(({ level }) => level)).toEqual([50]);
  });

  it('logs only from LOG_LEVEL up', async () => {
    const { lines, app } = logger('info');
    app.debug('hidden', 'X');
    app.verbose('hidden', 'X');
    app.log('shown', 'X');
    await settle();
    expect(lines.map((line) => line.msg)).toEqual(['shown']);
  });

  it('takes a message as it is, whatever `%` it holds, and keeps other arguments apart', async () => {
    const { lines, app } = logger();
    // What Nest's `new Logger('Ctx').error('…')` passes: no stack, then the context.
    app.error('100%s done, 50%% left', undefined, 'Ctx');
    const failure = new Error('inner');
    app.error('no context', failure.stack);
    app.log('with extras', 42, 'Ctx');
    await settle();
    expect(lines[0]).toMatchObject({ context: 'Ctx', msg: '100%s done, 50%% left' });
    expect(lines[0]).not.toHaveProperty('params');
    expect(lines[1]).toMatchObject({ err: { message: 'no context', stack: failure.stack } });
    expect(lines[1]).not.toHaveProperty('context');
    expect(lines[2]).toMatchObject({ context: 'Ctx', msg: 'with extras', params: [42] });
  });
});
