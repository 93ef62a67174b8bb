/**
 * HTTP benchmark (`npm run bench:http`): the example app built as `main.ts` builds it (`createApp`),
 * on loopback, with the offline echo model (a stub answering at once), on the embedded default
 * (SQLite, inline queue) and on PostgreSQL + Redis (Bull), on each HTTP platform
 * (`BENCH_HTTP_PLATFORMS`, default `fastify,express`); `BENCH_HTTP_ROUTES` picks the load routes.
 *
 * 1. Load (autocannon in its own process) at 1, 8 and 32 keep-alive connections on four routes —
 *    `GET …/messages?last=20` of a 10,000-message history, a working-memory write, a memory search
 *    (prefix, 20 of 1,000 records) and a turn — each beside its **floor**: a bare Nest route of the
 *    same platform answering the same JSON bytes. Library and floor alternate per connection count.
 *    Each run also gives the server's CPU time per request (this process's, the load generator
 *    running apart), which moves less with the machine's hour than requests/s do.
 * 2. Sequential pairs, one request in flight, alternating call by call: a turn over HTTP against
 *    `AgentService.run` in process (the difference is the HTTP layer's overhead per turn), and the
 *    read route against the store's `tail(20)` — each also beside the floor's bare route called
 *    the same way (the round trip any answer costs: client, loopback, Node's HTTP, routing), so the
 *    app's own HTTP layer is what remains.
 *
 * Targets: read route p50 ≤ 2× its floor at 1 connection; requests/s at 32 connections ≥ half the
 * floor's; HTTP overhead per turn ≤ 0.5 ms p50.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { join } from 'node:path';
// The built app (`npm run build`): Nest's DI and Swagger need the decorator metadata tsc emits.
import { createApp } from '../dist/app/create-app.js';
import { loadAllConfig } from '../dist/config/validate-env.js';
import { AgentService, CHAT_MEMORY_STORE, type ChatMemoryStore } from '../dist/index.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from '../test/support/test-databases.js';
import { BenchHttpClient } from './support/http-client.js';
import { type HttpPlatform, floorReplies, startFloorApp } from './support/http-floor-app.js';
import { LoadClient } from './support/load-client.js';
import type { LoadJob, LoadResult } from './support/load-generator.js';
import { compareRow, measureRotating, TABLE_HEADER } from './support/measure.js';

const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 3);
const TURNS = Number(process.env.BENCH_HTTP_TURNS ?? 600);
const READS = Number(process.env.BENCH_HTTP_READS ?? 3_000);
const CONNECTIONS = (process.env.BENCH_HTTP_CONNECTIONS ?? '1,8,32').split(',').map(Number);
const PLATFORMS = (process.env.BENCH_HTTP_PLATFORMS ?? 'fastify,express').split(
  ',',
) as HttpPlatform[];
const LAYOUTS = (process.env.BENCH_HTTP_LAYOUTS ?? 'sqlite,postgres').split(',');
/** The load routes to run, by key (`read,write,search,turn`); the sequential pairs always run. */
const ROUTE_KEYS = ['read', 'write', 'search', 'turn'];
const ROUTES = (process.env.BENCH_HTTP_ROUTES ?? ROUTE_KEYS.join(',')).split(',');
const unknownRoutes = ROUTES.filter((key) => !ROUTE_KEYS.includes(key));
if (unknownRoutes.length > 0)
  throw new Error(`BENCH_HTTP_ROUTES: unknown ${unknownRoutes.join(', ')} (known: ${ROUTE_KEYS})`);
const HISTORY = 10_000;
const RECORDS = 1_000;

const layoutEnv: Record<string, Record<string, string>> = {
  sqlite: {
    SQLITE_PATH: join(tempDir(), 'bench.sqlite'),
    LONGTERM_MEMORY_URI: `sqlite:${join(tempDir(), 'bench-longterm.sqlite')}`,
  },
  postgres: {
    CHAT_MEMORY_BACKEND: 'postgres',
    DATABASE_URL: TEST_POSTGRES_URL,
    LONGTERM_MEMORY_URI: TEST_POSTGRES_URL,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
  },
};

const load = new LoadClient();
const loadRows: string[] = [
  '| layout | platform | route | conns | lib req/s | lib p50 ms | lib p99 ms | lib CPU µs/req | floor req/s | floor p50 ms | floor p99 ms | floor CPU µs/req | p50 ratio | req/s ratio |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const pairRows: string[] = [TABLE_HEADER];

for (const layout of LAYOUTS) for (const platform of PLATFORMS) await benchOne(layout, platform);
load.close();
console.log(`\nNode ${process.version}, ${SECONDS} s per load run, ${new Date().toISOString()}\n`);
console.log(loadRows.join('\n'));
console.log(`\n${pairRows.join('\n')}`);

async function benchOne(layout: string, platform: HttpPlatform): Promise<void> {
  Object.assign(process.env, {
    LOG_LEVEL: 'info',
    RATE_LIMIT_MAX: '0',
    LLM_PROVIDER: 'echo',
    HTTP_ADAPTER: platform,
    ...layoutEnv[layout],
  });
  const config = loadAllConfig(process.env);
  const app = await createApp(config, { bufferLogs: false });
  app.useLogger(['error']);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const client = new BenchHttpClient(url);
  const agent = app.get(AgentService);
  const store = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
  const run = randomUUID().slice(0, 8);
  const label = `${layout} ${platform}`;
  console.error(`… ${label}: seeding`);

  const long = `long-${run}`;
  for (let start = 0; start < HISTORY; start += 500)
    await store.add(
      long,
      Array.from({ length: 500 }, (_, j) => ({
        role: (start + j) % 2 ? ('assistant' as const) : ('user' as const),
        content: `message ${start + j} `.repeat(4),
      })),
    );
  // Statistics as autovacuum would have them by now (as the store benchmarks settle): on stale
  // ones PostgreSQL plans the read route's page statement afresh on every call.
  if (layout === 'postgres') await settlePostgres();
  const entity = `e-${run}`;
  for (let i = 0; i < RECORDS; i++)
    await client.request('PUT', `/entities/${entity}/memories/k${String(i).padStart(4, '0')}`, {
      value: { note: `record ${i}` },
    });
  floorReplies.messages = (
    await client.request('GET', `/conversations/${long}/messages?last=20`)
  ).body;
  floorReplies.memories = (
    await client.request('GET', `/entities/${entity}/memories?prefix=k0&limit=20`)
  ).body;
  floorReplies.turn = (
    await client.request('POST', `/conversations/t-${run}-seed/turns`, { message: 'hello' })
  ).body;
  const floor = await startFloorApp(platform);

  const routes: Array<{
    key: string;
    name: string;
    job: Omit<LoadJob, 'url' | 'connections' | 'durationSeconds'>;
  }> = [
    {
      key: 'read',
      name: 'GET messages?last=20 (10k history)',
      job: { method: 'GET', paths: [`/conversations/${long}/messages?last=20`], expectStatus: 200 },
    },
    {
      key: 'write',
      name: 'PUT working-memory entry',
      job: {
        method: 'PUT',
        paths: Array.from(
          { length: 64 },
          (_, i) => `/conversations/w-${run}-${i}/working-memory/k`,
        ),
        body: JSON.stringify({ value: { note: 'a short note', step: 3 } }),
        expectStatus: 204,
      },
    },
    {
      key: 'search',
      name: 'GET memories?prefix (20 of 1,000)',
      job: {
        method: 'GET',
        paths: [`/entities/${entity}/memories?prefix=k0&limit=20`],
        expectStatus: 200,
      },
    },
    {
      key: 'turn',
      name: 'POST turn (echo model)',
      job: {
        method: 'POST',
        paths: Array.from({ length: 256 }, (_, i) => `/conversations/t-${run}-${i}/turns`),
        body: JSON.stringify({ message: 'hello' }),
        expectStatus: 201,
      },
    },
  ];
  for (const route of routes.filter(({ key }) => ROUTES.includes(key))) {
    console.error(`… ${label}: ${route.name}`);
    // Warm both up (JIT, pools, caches) before the first measured run.
    for (const target of [url, floor.url])
      await load.run({ ...route.job, url: target, connections: 8, durationSeconds: 1 });
    for (const connections of CONNECTIONS) {
      const lib = await withServerCpu(() =>
        load.run({ ...route.job, url, connections, durationSeconds: SECONDS }),
      );
      const bare = await withServerCpu(() =>
        load.run({ ...route.job, url: floor.url, connections, durationSeconds: SECONDS }),
      );
      loadRows.push(loadRow(layout, platform, route.name, connections, lib, bare));
    }
  }

  // Three sides, call by call: the turn over HTTP, the same turn in process, and the floor's bare
  // route over the same kind of client with the same body — the round trip any HTTP answer costs
  // (client, loopback, Node's HTTP, the framework's routing), which the target's 0.5 ms includes.
  const floorClient = new BenchHttpClient(floor.url);
  const turnBody = (i: number) => ({ message: `hello ${i}` });
  const turns = await measureRotating(
    {
      library: async (i) => {
        const path = `/conversations/h-${run}-${i % 50}/turns`;
        const response = await client.request('POST', path, turnBody(i));
        if (response.status !== 201) throw new Error(`turn answered ${response.status}`);
      },
      floor: (i) => agent.run({ conversationId: `p-${run}-${i % 50}`, ...turnBody(i) }),
      bare: async (i) => {
        const path = `/conversations/h-${run}-${i % 50}/turns`;
        const response = await floorClient.request('POST', path, turnBody(i));
        if (response.status !== 201) throw new Error(`bare turn answered ${response.status}`);
      },
    },
    TURNS,
  );
  pairRows.push(compareRow(label, 'turn: HTTP vs AgentService.run', turns));
  const overhead = turns.library.p50Ms - turns.floor.p50Ms;
  pairRows.push(
    `|  | HTTP overhead per turn | p50 ${overhead.toFixed(3)} ms | p99 ${(turns.library.p99Ms - turns.floor.p99Ms).toFixed(3)} ms | of which a bare route's round trip p50 ${turns.bare.p50Ms.toFixed(3)} ms | the app's HTTP layer p50 ${(overhead - turns.bare.p50Ms).toFixed(3)} ms |  |  |  |`,
  );
  const reads = await measureRotating(
    {
      library: async () => {
        const response = await client.request('GET', `/conversations/${long}/messages?last=20`);
        if ((response.body as { messages: unknown[] }).messages.length !== 20)
          throw new Error('expected 20 messages');
      },
      floor: () => store.tail(long, 20),
      bare: () => floorClient.request('GET', `/conversations/${long}/messages?last=20`),
    },
    READS,
  );
  pairRows.push(compareRow(label, 'GET messages?last=20 vs tail(20), 10k history', reads));
  pairRows.push(
    `|  | the read's HTTP layer | p50 ${(reads.library.p50Ms - reads.floor.p50Ms - reads.bare.p50Ms).toFixed(3)} ms (HTTP p50 − tail(20) p50 − a bare route's round trip p50 ${reads.bare.p50Ms.toFixed(3)} ms) |  |  |  |  |  |  |  |`,
  );
  floorClient.close();
  client.close();
  await floor.app.close();
  await app.close();
}

/**
 * A load run's result with this Node process's CPU time per request: the app's and the floor's
 * servers run here, the load generator in its own process (a database server's CPU, on the
 * PostgreSQL layout, is not counted; SQLite's is).
 */
async function withServerCpu(
  run: () => Promise<LoadResult>,
): Promise<LoadResult & { cpuMicros: number }> {
  // What the previous run left (deferred writes, garbage) is not charged to this one.
  await sleep(200);
  (globalThis as { gc?: () => void }).gc?.();
  const start = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(start);
  return { ...result, cpuMicros: (used.user + used.system) / Math.max(1, result.requests) };
}

function loadRow(
  layout: string,
  platform: string,
  route: string,
  connections: number,
  lib: LoadResult & { cpuMicros: number },
  floor: LoadResult & { cpuMicros: number },
): string {
  if (lib.errors > 0 || floor.errors > 0)
    throw new Error(`${route}: ${lib.errors} library / ${floor.errors} floor errors`);
  const f = (ms: number) => ms.toFixed(3);
  return `| ${layout} | ${platform} | ${route} | ${connections} | ${lib.requestsPerSecond.toFixed(0)} | ${f(lib.p50Ms)} | ${f(lib.p99Ms)} | ${lib.cpuMicros.toFixed(0)} | ${floor.requestsPerSecond.toFixed(0)} | ${f(floor.p50Ms)} | ${f(floor.p99Ms)} | ${floor.cpuMicros.toFixed(0)} | ${(lib.p50Ms / floor.p50Ms).toFixed(2)}× | ${(lib.requestsPerSecond / floor.requestsPerSecond).toFixed(2)} |`;
}

/** `VACUUM (ANALYZE)` of the chat table, on a connection of its own. */
async function settlePostgres(): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE) agent_chat_messages');
  } finally {
    await client.end();
  }
}
