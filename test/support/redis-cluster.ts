import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ephemeralRangeStart, freePort, isFree } from './free-port.js';
import { tempDir } from './test-databases.js';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: `masters` `redis-server --cluster-enabled yes` processes on
 * loopback ports (each in its own directory, no persistence), joined by `redis-cli --cluster
 * create` with no replicas. Ready when every node reports `cluster_state:ok`.
 */
export class OwnRedisCluster {
  private readonly processes: ChildProcess[] = [];

  private constructor(
    readonly ports: number[],
    private readonly dir: string,
  ) {}

  /** Starts and joins the nodes (about 3 s for three). */
  static async start(masters = 3): Promise<OwnRedisCluster> {
    const cluster = new OwnRedisCluster(await clusterPorts(masters), tempDir('redis-cluster-'));
    for (const port of cluster.ports) mkdirSync(join(cluster.dir, String(port)));
    try {
      await cluster.spawnNodes();
      await run('redis-cli', [
        '--cluster',
        'create',
        ...cluster.ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ]);
      await cluster.untilReady();
    } catch (error) {
      // A cluster that did not come up leaves no node behind (its error is the one reported).
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /**
   * Starts the killed nodes again on their ports and directories: each finds the cluster it belongs
   * to in its `nodes.conf`, so the cluster comes back with its slots, empty.
   */
  async restart(): Promise<void> {
    this.processes.length = 0;
    await this.spawnNodes();
    await this.untilReady();
  }

  /** The URL the package reads: `redis+cluster://` and every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.ports.map((port) => `127.0.0.1:${port}`).join(',')}`;
  }

  /** The number of keys each node holds, in port order. */
  async keysPerNode(): Promise<number[]> {
    return Promise.all(this.ports.map(async (port) => Number(await cli(port, 'dbsize'))));
  }

  /** Every key of every node that matches `pattern` (`KEYS` per node: a test's own cluster). */
  async keys(pattern: string): Promise<string[]> {
    const lists = await Promise.all(this.ports.map((port) => cli(port, 'keys', pattern)));
    return lists.flatMap((list) => list.split('\n').filter(Boolean));
  }

  private async spawnNodes(): Promise<void> {
    for (const port of this.ports) {
      const node = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--dir', join(this.dir, String(port))],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
          ...['--save', '', '--appendonly', 'no', '--logfile', 'redis.log'],
        ],
        { stdio: 'ignore' },
      );
      this.processes.push(node);
    }
    for (const [index, port] of this.ports.entries()) {
      const node = this.processes[index]!;
      await waitFor(() => (node.exitCode !== null ? this.exited(port) : cli(port, 'ping')), 'PONG');
    }
  }

  private exited(port: number): never {
    const log = readFileSync(join(this.dir, String(port), 'redis.log'), 'utf8');
    throw new Error(
      `the Redis Cluster node on ${port} exited: ${log.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }

  private async untilReady(): Promise<void> {
    for (const port of this.ports)
      await waitFor(async () => /cluster_state:ok/.test(await cli(port, 'cluster', 'info')), true);
  }

  /** Kills every node (no persistence: nothing survives). */
  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (node) =>
          new Promise((resolve) => {
            if (node.exitCode !== null || node.signalCode !== null) return resolve(undefined);
            node.once('exit', resolve);
            node.kill('SIGKILL');
          }),
      ),
    );
  }
}

async function cli(port: number, ...args: string[]): Promise<string> {
  try {
    return (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();
  } catch {
    return '';
  }
}

async function waitFor<T>(probe: () => Promise<T>, expected: T): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if ((await probe()) === expected) return;
    await sleep(50);
  }
  throw new Error('the Redis Cluster did not come up within 10 s');
}

/**
 * Free ports whose cluster bus ports (port + 10000) are free too, all below the ephemeral range; no
 * port is another's bus port (12393 and 22393 together: the first node's bus cannot bind).
 */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const taken = new Set<number>();
  for (let attempt = 0; attempt < 1_000 && ports.length < count; attempt += 1) {
    const port = await freePort(ephemeralRangeStart() - 10_000);
    if (taken.has(port) || taken.has(port + 10_000) || !(await isFree(port + 10_000))) continue;
    ports.push(port);
    taken.add(port).add(port + 10_000);
  }
  if (ports.length < count) throw new Error('no free ports for a Redis Cluster');
  return ports;
}
