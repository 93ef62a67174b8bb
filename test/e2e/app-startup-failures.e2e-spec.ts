import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { TEST_POSTGRES_URL, tempDir } from '../support/test-databases.js';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Runs the built app to its exit (bounded: 45 s); its output and exit code. */
async function runApp(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, SQLITE_PATH: `${tempDir()}/app.sqlite`, ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(killer);
  const lines = output.split('\n').filter(Boolean);
  return { code, lines };
}

/** The JSON lines of an output; throws on a line that is not one (a format switch, a raw stack). */
function jsonLines(lines: string[]): Array<Record<string, unknown>> {
  return lines
    .filter((line) => !line.startsWith('(node:') && !line.startsWith('(Use `node'))
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

/**
 * A start that fails says what failed and what to do in one line of the app's log format (fatal),
 * fast, and exits 1: no switch to Nest's coloured text, no raw stack.
 */
describe('start-up failures', () => {
  it('an unreachable PostgreSQL: one fatal line naming the address and the variables, within seconds', async () => {
    const { code, lines } = await runApp({
      CHAT_MEMORY_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
    });
    expect(code).toBe(1);
    const logged = jsonLines(lines);
    const fatal = logged.filter((line) => line['level'] === 60);
    expect(fatal).toEqual([
      expect.objectContaining({
        context: 'App',
        msg: 'Could not connect to 127.0.0.1:1 (ECONNREFUSED): start that server, or fix DATABASE_URL, LONGTERM_MEMORY_URI or REDIS_URL.',
      }),
    ]);
    // 3 tries 1 s apart (TypeORM's default was 9, 3 s apart: 29 s), from the first try's failure.
    const first = logged.find((line) => line['context'] === 'TypeOrmModule')!;
    expect((fatal[0]!['time'] as number) - (first['time'] as number)).toBeLessThan(5_000);
    expect(lines.join('\n')).not.toMatch(/\u001b\[/);
    // Nest's own report of the failed start (its stack) is not logged beside the fatal line.
    expect(logged.filter((line) => line['context'] === 'ExceptionHandler')).toEqual([]);
  }, 60_000);

  it('a database that does not exist: the fatal line names it', async () => {
    const { code, lines } = await runApp({
      CHAT_MEMORY_BACKEND: 'postgres',
      DATABASE_URL: Object.assign(new URL(TEST_POSTGRES_URL), {
        pathname: '/no_such_database_here',
      }).href,
    });
    expect(code).toBe(1);
    expect(jsonLines(lines).filter((line) => line['level'] === 60)).toEqual([
      expect.objectContaining({
        msg: 'The database "no_such_database_here" does not exist (3D000): create it, or fix DATABASE_URL, LONGTERM_MEMORY_URI or REDIS_URL.',
      }),
    ]);
  }, 60_000);

  it('an unreachable Redis: every line in the log format (no unhandled ioredis event)', async () => {
    const { code, lines } = await runApp({ REDIS_URL: 'redis://127.0.0.1:1/7' });
    expect(code).toBe(1);
    const logged = jsonLines(lines);
    expect(logged.filter((line) => line['level'] === 60)).toEqual([
      expect.objectContaining({
        msg: 'Could not connect to 127.0.0.1:1 (ECONNREFUSED): start that server, or fix DATABASE_URL, LONGTERM_MEMORY_URI or REDIS_URL.',
      }),
    ]);
  }, 60_000);

  it('a port in use: one fatal line saying so and what to do', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const { code, lines } = await runApp({ PORT: String(port) });
      expect(code).toBe(1);
      const fatal = jsonLines(lines).filter((line) => line['level'] === 60);
      expect(fatal).toEqual([
        expect.objectContaining({
          msg: `Port ${port} is already in use: stop what listens on it, or set PORT to a free port.`,
        }),
      ]);
      expect(lines.join('\n')).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 60_000);

  it('LOG_FORMAT=pretty: readable lines (time, level, context, message), the failure too', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    try {
      const { code, lines } = await runApp({ PORT: String(port), LOG_FORMAT: 'pretty' });
      expect(code).toBe(1);
      expect(lines).toContainEqual(
        expect.stringMatching(
          /^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[NestFactory\] Starting Nest application/,
        ),
      );
      expect(lines.at(-1)).toMatch(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} FATAL \\[App\\] Port ${port} is already in use`),
      );
      expect(lines.some((line) => line.startsWith('{'))).toBe(false);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 60_000);
});
