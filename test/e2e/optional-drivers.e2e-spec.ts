import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const run = promisify(execFile);
const support = (file: string) => fileURLToPath(new URL(`../support/${file}`, import.meta.url));

/** Runs the built library in a process where `blocked` packages cannot be resolved. */
async function bootWithout(
  blocked: string[],
  backends: Record<string, unknown>,
): Promise<Record<string, string>> {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      support('block-packages.register.mjs'),
      support('optional-drivers.child.mjs'),
      JSON.stringify(backends),
    ],
    { env: { ...process.env, NODE_OPTIONS: '', BLOCKED_PACKAGES: blocked.join(',') } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, string>;
}

describe('optional drivers (on the built package)', () => {
  it('lets an app on memory or Redis run without typeorm, pg, mysql2 or better-sqlite3 installed', async () => {
    const outcomes = await bootWithout(['typeorm', 'pg', 'mysql2', 'better-sqlite3'], {
      memory: { backend: 'memory' },
      redis: { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: 'test:optional:' },
      sqlite: { backend: 'sqlite', path: ':memory:' },
    });
    expect(outcomes).toEqual({
      memory: 'ok',
      redis: 'ok',
      sqlite: 'missing typeorm better-sqlite3',
    });
  }, 30_000);

  it('names the driver a backend lacks', async () => {
    const outcomes = await bootWithout(['ioredis', 'pg'], {
      redis: { backend: 'redis', url: TEST_REDIS_URL },
      postgres: { backend: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' },
      sqlite: { backend: 'sqlite', path: ':memory:' },
    });
    expect(outcomes).toEqual({ redis: 'missing ioredis', postgres: 'missing pg', sqlite: 'ok' });
  }, 30_000);

  it('names every package a backend lacks at once', async () => {
    const outcomes = await bootWithout(['typeorm', 'pg'], {
      postgres: { backend: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' },
    });
    expect(outcomes).toEqual({ postgres: 'missing typeorm pg' });
  }, 30_000);

  it('the example app names every missing package of its configuration at once, before starting', async () => {
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const outcome = await run(
      process.execPath,
      ['--import', support('block-packages.register.mjs'), main],
      {
        env: {
          PATH: process.env.PATH,
          BLOCKED_PACKAGES: 'typeorm,pg,ioredis,bull',
          CHAT_MEMORY_BACKEND: 'postgres',
          DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
          REDIS_URL: TEST_REDIS_URL,
          AGENT_QUEUE: 'bull',
          PORT: '0',
        },
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(
      'needs the optional packages "typeorm", "pg", "ioredis", "bull", which are not installed. Install them with: npm install typeorm pg ioredis bull',
    );
    expect(outcome.stderr).toContain('CHAT_MEMORY_BACKEND=postgres');
  }, 30_000);
});
