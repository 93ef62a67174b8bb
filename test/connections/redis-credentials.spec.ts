import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { freePort } from '../support/free-port.js';
import { tempDir } from '../support/test-databases.js';

/** A Redis of the test's own (no password: clients that send one are let in with a warning). */
let server: ChildProcess;
let admin: Redis;
let port: number;
beforeAll(async () => {
  port = await freePort();
  server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', tempDir()],
    { stdio: 'ignore' },
  );
  admin = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
  for (let i = 0; i < 100 && admin.status !== 'ready'; i += 1)
    await admin.connect().catch(() => sleep(50));
});
afterAll(async () => {
  admin.disconnect();
  server.kill('SIGKILL');
});

/** Clients connected to the server, the admin one excepted. */
async function connectedClients(): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.trim().split('\n').length - 1;
}

describe('Redis connections are shared per credentials', () => {
  it('gives modules with different passwords different clients, and the same password one', async () => {
    const url = (password: string) => `redis://:${password}@127.0.0.1:${port}`;
    for (const [passwords, expected] of [
      [['PW1', 'PW2'], 2],
      [['PW1', 'PW1'], 1],
    ] as const) {
      const app = await Test.createTestingModule({
        imports: [
          ChatMemoryModule.forRoot({ backend: 'redis', url: url(passwords[0]) }),
          ChatMemoryModule.forRoot({ backend: 'redis', url: url(passwords[1]), name: 'other' }),
        ],
      }).compile();
      await app.init();
      try {
        expect(await connectedClients()).toBe(expected);
      } finally {
        await app.close();
      }
    }
  });
});
