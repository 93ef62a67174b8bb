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
    expect(outcomes).toEqual({ memory: 'ok', redis: 'ok', sqlite: 'missing typeorm' });
  }, 30_000);

  it('names the driver a backend lacks', async () => {
    const outcomes = await bootWithout(['ioredis', 'pg'], {
      redis: { backend: 'redis', url: TEST_REDIS_URL },
      postgres: { backend: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' },
      sqlite: { backend: 'sqlite', path: ':memory:' },
    });
    expect(outcomes).toEqual({ redis: 'missing ioredis', postgres: 'missing pg', sqlite: 'ok' });
  }, 30_000);
});
