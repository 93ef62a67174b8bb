import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './test-databases.js';

/** A Redis of the test's own on loopback, with AOF fsynced on every write, in its own directory. */
export class OwnRedis {
  private process?: ChildProcess;
  readonly dir = tempDir('redis-aof-');
  constructor(readonly port: number) {}

  async start(): Promise<void> {
    this.process = spawn('redis-server', [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
    ]);
    for (let i = 0; i < 100; i += 1) {
      if (await this.ping()) return;
      await sleep(50);
    }
    throw new Error('redis-server did not start');
  }

  /** SIGKILL: no shutdown save; what survives is what the AOF fsynced. */
  async kill(): Promise<void> {
    const exited = new Promise((resolve) => this.process!.once('exit', resolve));
    this.process!.kill('SIGKILL');
    await exited;
  }

  private async ping(): Promise<boolean> {
    const cli = spawn('redis-cli', ['-p', String(this.port), 'ping']);
    let out = '';
    cli.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => cli.once('exit', resolve));
    return out.trim() === 'PONG';
  }
}
