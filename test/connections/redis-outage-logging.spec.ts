import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { freePort } from '../support/free-port.js';
import { tempDir } from '../support/test-databases.js';

/** Whether a Redis server answers PING on `port` (redis-cli, not a probe that could mistake another listener). */
async function pings(port: number): Promise<boolean> {
  const cli = spawn('redis-cli', ['-p', String(port), 'ping']);
  let out = '';
  cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((resolve) => cli.once('exit', resolve));
  return out.trim() === 'PONG';
}

/**
 * A Redis server of the test's own on a free loopback port, answering PING. A port taken between
 * `freePort` and the server's bind (another process's outgoing connection may take it as its local
 * port) makes the server exit: then another port is tried.
 */
async function startRedis(): Promise<{ server: ChildProcess; port: number }> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await freePort();
    const server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        tempDir(),
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 200 && server.exitCode === null; i += 1) {
      if (await pings(port)) return { server, port };
      await sleep(50);
    }
    server.kill('SIGKILL');
  }
  throw new Error('redis-server did not start');
}

describe('a Redis outage', () => {
  it('is logged through Nest’s logger, rate-limited, not as unhandled ioredis errors', async () => {
    const { server, port } = await startRedis();
    const registry = new ConnectionRegistry();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const lease = await registry.acquireRedis(`redis://127.0.0.1:${port}`);
      expect(await lease.value.ping()).toBe('PONG');
      server.kill('SIGKILL');
      await sleep(2_000); // several reconnect attempts fail meanwhile
      const lines = warn.mock.calls.map(([message]) => String(message));
      const outage = lines.filter((line) => line.startsWith('Redis connection redis#'));
      expect(outage.length).toBeGreaterThanOrEqual(1);
      expect(outage.length).toBeLessThanOrEqual(2);
      expect(consoleError.mock.calls.flat().join(' ')).not.toContain('Unhandled error event');
    } finally {
      server.kill('SIGKILL');
      await registry.onApplicationShutdown();
      warn.mockRestore();
      consoleError.mockRestore();
    }
  }, 20_000);

  it('fails a connection that cannot be made with the server’s own error, and stops retrying it', async () => {
    const registry = new ConnectionRegistry();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const port = await freePort(); // nothing listens there
      const error = await registry.acquireRedis(`redis://127.0.0.1:${port}`).catch((e: Error) => e);
      expect(String(error)).toContain('ECONNREFUSED');
      const before = warn.mock.calls.length;
      await sleep(1_500);
      expect(warn.mock.calls.length).toBe(before); // no reconnect attempts behind the caller's back
    } finally {
      warn.mockRestore();
      await registry.onApplicationShutdown();
    }
  });
});
