/**
 * What one turn costs its stores (`npm run bench:turn-cost`): the example app as `main.ts` builds it
 * (`createApp`), with the offline echo model, on the embedded default (SQLite, inline queue) and on
 * PostgreSQL + Redis (Bull; a Redis server of the benchmark's own on loopback, so its command
 * counts are the app's alone). `AgentService.run` in process (HTTP is the HTTP benchmark's
 * subject), `BENCH_TURNS` turns (400) over 20 conversations after a warm-up that opens them. Prints,
 * per layout, what a turn sends its stores — SQLite statements run (better-sqlite3 `run`, `get`,
 * `all`, `iterate`, `exec`), PostgreSQL queries (each a round trip), Redis commands by name (Lua
 * scripts among them) — and turns/s with p50 / p99 at 1 and 32 turns in flight (one conversation
 * of `BENCH_TURNS` turns at 1, 32 shorter ones at 32), with the CPU the process spent per turn (the
 * app's own work, SQLite's included on the embedded layout; it varies less than turns/s when the
 * machine is busy).
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
// The built app (`npm run build`): Nest's DI needs the decorator metadata tsc emits.
import { createApp } from '../dist/app/create-app.js';
import { loadAllConfig } from '../dist/config/validate-env.js';
import { AgentService } from '../dist/index.js';
import { freePort } from '../test/support/free-port.js';
import { TEST_POSTGRES_URL, tempDir } from '../test/support/test-databases.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 400);
const CONVERSATIONS = 20;
const LAYOUTS = (process.env.BENCH_TURN_LAYOUTS ?? 'sqlite,postgres').split(',');
/** Turns in flight measured (`BENCH_TURN_IN_FLIGHT=32` for one of them, e.g. under a profiler). */
const IN_FLIGHT = (process.env.BENCH_TURN_IN_FLIGHT ?? '1,32').split(',').map(Number);

/** Counts of what the process sent its stores, by the drivers' own calls. */
const sent = { sqlite: 0, postgres: 0 };
/** With `BENCH_TURN_TRACE` set, the statements of one turn per layout are printed (to stderr). */
let tracing = false;
countSqliteStatements();
countPostgresQueries();

const rows: string[] = [];
for (const layout of LAYOUTS) await benchLayout(layout);
console.log(`\nNode ${process.version}, ${TURNS} turns per layout, ${new Date().toISOString()}\n`);
console.log(rows.join('\n'));

async function benchLayout(layout: string): Promise<void> {
  const redisPort = layout === 'postgres' ? await freePort() : undefined;
  const redis = redisPort === undefined ? undefined : startRedis(redisPort);
  if (redisPort !== undefined) await waitForRedis(redisPort);
  // A layout's variables only: none of the layout benched before it (its Redis is gone).
  for (const name of [
    'CHAT_MEMORY_BACKEND',
    'DATABASE_URL',
    'REDIS_URL',
    'QUEUE_PREFIX',
    'SQLITE_PATH',
  ])
    delete process.env[name];
  Object.assign(process.env, {
    LOG_LEVEL: 'error',
    RATE_LIMIT_MAX: '0',
    LLM_PROVIDER: 'echo',
    ...(layout === 'sqlite'
      ? {
          SQLITE_PATH: join(tempDir(), 'turns.sqlite'),
          LONGTERM_MEMORY_URI: `sqlite:${join(tempDir(), 'turns-longterm.sqlite')}`,
        }
      : {
          CHAT_MEMORY_BACKEND: 'postgres',
          DATABASE_URL: TEST_POSTGRES_URL,
          LONGTERM_MEMORY_URI: TEST_POSTGRES_URL,
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          QUEUE_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
        }),
  });
  const app = await createApp(loadAllConfig(process.env), { bufferLogs: false });
  app.useLogger(['error']);
  await app.init();
  const agent = app.get(AgentService);
  const run = randomUUID().slice(0, 8);
  const turn = (i: number, conversation = `c-${run}-${i % CONVERSATIONS}`) =>
    agent.run({ conversationId: conversation, message: `hello ${i}` });
  try {
    for (let i = 0; i < CONVERSATIONS * 2; i += 1) await turn(i);
    if (process.env.BENCH_TURN_TRACE) {
      console.error(`${layout}: one turn's statements`);
      tracing = true;
      await turn(0);
      tracing = false;
    }
    const counter = redisPort === undefined ? undefined : new Redis(redisPort, '127.0.0.1');
    await counter?.config('RESETSTAT');
    const before = { ...sent };
    for (let i = 0; i < TURNS; i += 1) await turn(i);
    const commands = counter ? commandCounts(await counter.info('commandstats')) : undefined;
    counter?.disconnect();
    const perTurn = (n: number) => (n / TURNS).toFixed(1);
    const parts = [
      layout === 'sqlite' ? `SQLite statements ${perTurn(sent.sqlite - before.sqlite)}` : '',
      layout === 'postgres'
        ? `PostgreSQL queries ${perTurn(sent.postgres - before.postgres)}, SQLite ${perTurn(sent.sqlite - before.sqlite)}`
        : '',
      commands
        ? `Redis commands ${perTurn(total(commands))} (${[...commands]
            .sort((a, b) => b[1] - a[1])
            .map(([name, n]) => `${name} ${perTurn(n)}`)
            .join(', ')})`
        : '',
    ].filter(Boolean);
    rows.push(`- ${layout}: per turn, ${parts.join('; ')}`);
    for (const inFlight of IN_FLIGHT) {
      // Each of the turns in flight in a conversation of its own (a conversation's turns are
      // serialized: a second one at once is refused as a version conflict).
      const sentBefore = { ...sent };
      const times = await timedTurns(
        (i, worker) => turn(i, `t-${run}-${inFlight}-${worker}`),
        inFlight,
      );
      // Concurrent turns may share statements (batched writes), so count them at each level.
      const statements =
        layout === 'postgres'
          ? `, PostgreSQL queries ${perTurn(sent.postgres - sentBefore.postgres)} per turn`
          : `, SQLite statements ${perTurn(sent.sqlite - sentBefore.sqlite)} per turn`;
      rows.push(
        `  - ${inFlight} in flight: ${times.perSecond.toFixed(0)} turns/s, p50 ${times.p50.toFixed(2)} ms, p99 ${times.p99.toFixed(2)} ms, the app's CPU ${times.cpuMsPerTurn.toFixed(2)} ms per turn${statements}`,
      );
    }
  } finally {
    await app.close();
    redis?.kill('SIGKILL');
  }
}

/** `TURNS` turns, `inFlight` at a time: turns/s and latency percentiles. */
async function timedTurns(turn: (i: number, worker: number) => Promise<unknown>, inFlight: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      while (next < TURNS) {
        const i = next++;
        const at = performance.now();
        await turn(i, worker);
        latencies.push(performance.now() - at);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    perSecond: TURNS / seconds,
    p50: at(0.5),
    p99: at(0.99),
    cpuMsPerTurn: (cpu.user + cpu.system) / 1000 / TURNS,
  };
}

function countSqliteStatements(): void {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'])
    statement[method] = countCalls(statement[method] as (...args: unknown[]) => unknown, 'sqlite');
  const database = Database.prototype as unknown as Record<string, unknown>;
  database.exec = countCalls(database.exec as (...args: unknown[]) => unknown, 'sqlite');
}

function countPostgresQueries(): void {
  const client = pg.Client.prototype as unknown as Record<string, unknown>;
  client.query = countCalls(client.query as (...args: unknown[]) => unknown, 'postgres');
}

function countCalls(original: (...args: unknown[]) => unknown, into: keyof typeof sent) {
  return function (this: unknown, ...args: unknown[]) {
    sent[into] += 1;
    if (tracing)
      console.error(`  ${into}: ${statementText(this, args).replace(/\s+/g, ' ').slice(0, 160)}`);
    return original.apply(this, args);
  };
}

function statementText(target: unknown, args: unknown[]): string {
  const source = (target as { source?: unknown }).source;
  if (typeof source === 'string') return source;
  const [first] = args;
  if (typeof first === 'string') return first;
  return String((first as { text?: unknown } | undefined)?.text ?? '?');
}

function startRedis(port: number) {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
}

async function waitForRedis(port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
    client.on('error', () => undefined); // not up yet: tried again
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch {
      client.disconnect();
      await sleep(50);
    }
  }
  throw new Error(`redis-server did not start on ${port}`);
}

/** `INFO commandstats` as calls per command name, the benchmark's own commands left out. */
function commandCounts(info: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    // The benchmark's own INFO and CONFIG RESETSTAT are not the app's.
    if (!/^(info|config)/.test(match[1]!)) counts.set(match[1]!, Number(match[2]));
  return counts;
}

function total(counts: Map<string, number>): number {
  let sum = 0;
  for (const n of counts.values()) sum += n;
  return sum;
}
