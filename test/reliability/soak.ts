/**
 * Soak (`npm run soak`; not in CI): two instances of the built example app on one PostgreSQL and
 * one Redis (both are queue workers), driven for SOAK_SECONDS (default 300) by mixed traffic at a
 * bounded rate (SOAK_RATE requests/s, default 40) alternating between them: sync and async turns,
 * history reads, long-term memory PUTs and searches. The model is a local OpenAI-compatible stub
 * answering in 20 ms.
 *
 * Sampled at the start (after a 20 s warm-up) and at the end, once the queue has drained: each
 * instance's heap and event-loop delay p99 (one `/metrics` scrape each: the end's p99 covers the
 * whole soak), its open PostgreSQL connections (`pg_stat_activity` by `application_name`, again
 * 12 s later, when idle pooled connections have closed) and the Redis memory and clients. Prints
 * p50/p99 and errors per route and exits 1 if a resource did not stay flat (heap +50 % and
 * +20 MiB, more PostgreSQL connections than the pool allows or left open at rest, Redis clients
 * grown, any 5xx or lost async run).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const RATE = Number(process.env.SOAK_RATE ?? 40);
const WARMUP_SECONDS = Math.min(20, Math.ceil(SECONDS / 10));
const CONVERSATIONS = 50;
const ENTITIES = 20;
const run = randomUUID().slice(0, 8);

interface Sample {
  heapMiB: number[];
  eventLoopP99Ms: number[];
  postgresConnections: number[];
  redisMiB: number;
  redisClients: number;
}

type Route = 'turn (sync)' | 'turn (async)' | 'GET messages' | 'PUT memory' | 'GET memories?prefix';

const llm = new FakeLlmServer();
const llmUrl = await llm.start();
llm.fallback = () => ({ ...openAiCompletion('Noted.'), delayMs: 20 });
const postgres = new pg.Client({ connectionString: TEST_POSTGRES_URL });
await postgres.connect();
const redis = new Redis(TEST_REDIS_URL);

const names = [`soak-${run}-a`, `soak-${run}-b`];
const databaseUrl = (name: string) => {
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('application_name', name);
  return url.toString();
};
const apps: RunningApp[] = [];
for (const name of names)
  apps.push(
    await bootApp({
      CHAT_MEMORY_BACKEND: 'postgres',
      DATABASE_URL: databaseUrl(name),
      LONGTERM_MEMORY_URI: databaseUrl(name),
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `soak-${run}`,
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LOG_LEVEL: 'error',
    }),
  );

const latencies = new Map<Route, number[]>();
const failures = new Map<Route, Map<number, number>>();
const asyncRuns: Array<{ app: RunningApp; runId: string }> = [];
const conversation = (i: number) => `soak-${run}-c${i % CONVERSATIONS}`;
const entity = (i: number) => `soak-${run}-e${i % ENTITIES}`;

async function request(
  route: Route,
  app: RunningApp,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response | undefined> {
  const started = performance.now();
  try {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await response.clone().arrayBuffer();
    if (!latencies.has(route)) latencies.set(route, []);
    latencies.get(route)!.push(performance.now() - started);
    if (response.status >= 400) count(route, response.status);
    return response;
  } catch {
    count(route, 0);
    return undefined;
  }
}

function count(route: Route, status: number): void {
  const byStatus = failures.get(route) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  failures.set(route, byStatus);
}

let seq = 0;
/** One request of the mix (turns 40 %, reads 30 %, memory writes 15 %, searches 15 %). */
async function one(i: number): Promise<void> {
  const app = apps[i % apps.length]!;
  const pick = i % 20;
  if (pick < 6) {
    await request('turn (sync)', app, 'POST', `/conversations/${conversation(i)}/turns`, {
      message: `soak message ${i}`,
    });
  } else if (pick < 8) {
    const response = await request(
      'turn (async)',
      app,
      'POST',
      `/conversations/${conversation(i + 7)}/turns?async=true`,
      { message: `soak message ${i}` },
    );
    if (response?.status === 202)
      asyncRuns.push({ app, runId: ((await response.json()) as { runId: string }).runId });
  } else if (pick < 14) {
    await request('GET messages', app, 'GET', `/conversations/${conversation(i)}/messages?last=20`);
  } else if (pick < 17) {
    await request('PUT memory', app, 'PUT', `/entities/${entity(i)}/memories/note-${i % 100}`, {
      value: { text: `fact ${i}`, at: i },
      seq: (seq += 1),
    });
  } else {
    await request(
      'GET memories?prefix',
      app,
      'GET',
      `/entities/${entity(i)}/memories?prefix=note-&limit=20`,
    );
  }
}

/** One scrape of an instance's `/metrics` (the event-loop histogram restarts at each scrape). */
async function metrics(app: RunningApp): Promise<(name: string) => number> {
  const lines = (await (await fetch(`${app.url}/metrics`)).text()).split('\n');
  return (name) => {
    const line = lines.find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line === undefined ? Number.NaN : Number(line.split(' ').pop());
  };
}

async function sample(): Promise<Sample> {
  const connections = await Promise.all(
    names.map(async (name) =>
      Number(
        (
          await postgres.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1',
            [name],
          )
        ).rows[0]!.n,
      ),
    ),
  );
  const info = await redis.info();
  const field = (key: string) => Number(new RegExp(`^${key}:(\\d+)`, 'm').exec(info)![1]);
  const scrapes = await Promise.all(apps.map(metrics));
  return {
    heapMiB: scrapes.map((read) => read('nodejs_heap_size_used_bytes') / 2 ** 20),
    eventLoopP99Ms: scrapes.map((read) => read('nodejs_eventloop_lag_p99_seconds') * 1000),
    postgresConnections: connections,
    redisMiB: field('used_memory') / 2 ** 20,
    redisClients: field('connected_clients'),
  };
}

/** Sends requests at RATE per second for `seconds`, never more than RATE × 2 in flight. */
async function drive(seconds: number, from: number): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  const total = Math.round(seconds * RATE);
  const started = performance.now();
  for (let n = 0; n < total; n += 1) {
    const due = started + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= RATE * 2) await Promise.race(inFlight);
    const call = one(from + n).finally(() => inFlight.delete(call));
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  return from + total;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

try {
  process.stderr.write(`warming up for ${WARMUP_SECONDS} s…\n`);
  let next = await drive(WARMUP_SECONDS, 0);
  latencies.clear();
  failures.clear();
  await sleep(2_000);
  const start = await sample();
  process.stderr.write(`soaking for ${SECONDS} s at ${RATE} requests/s…\n`);
  next = await drive(SECONDS, next);
  // Let the queue drain, then sample at rest, like the start.
  const pending = async () =>
    (
      await Promise.all(
        asyncRuns.map(
          async ({ app, runId }) =>
            (await (await fetch(`${app.url}/runs/${runId}`)).json()) as { status: string },
        ),
      )
    ).filter((state) => state.status !== 'completed').length;
  let left = await pending();
  for (let i = 0; i < 60 && left > 0; i += 1) {
    await sleep(1_000);
    left = await pending();
  }
  await sleep(2_000);
  const end = await sample();
  // Idle pooled connections close after 10 s: what is left then is what the instances keep.
  await sleep(12_000);
  const rest = await sample();

  const lines = [
    `Node ${process.version}; ${SECONDS} s at ${RATE} requests/s over 2 instances (PostgreSQL + Redis, Bull); ${next} requests`,
    '',
    '| route | requests | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---|',
  ];
  for (const [route, samples] of latencies) {
    const sorted = [...samples].sort((a, b) => a - b);
    const errors = [...(failures.get(route) ?? new Map<number, number>())]
      .map(([status, n]) => `${n}× ${status === 0 ? 'network' : status}`)
      .join(', ');
    lines.push(
      `| ${route} | ${samples.length} | ${percentile(sorted, 0.5).toFixed(1)} | ${percentile(sorted, 0.99).toFixed(1)} | ${errors || '0'} |`,
    );
  }
  const pair = (a: number[], b: number[], digits: number) =>
    a.map((value, i) => `${value.toFixed(digits)} → ${b[i]!.toFixed(digits)}`).join('; ');
  lines.push(
    '',
    '| resource (start → end) | instance a; instance b |',
    '|---|---|',
    `| heap used, MiB | ${pair(start.heapMiB, end.heapMiB, 1)} |`,
    `| event-loop delay p99, ms | ${pair(start.eventLoopP99Ms, end.eventLoopP99Ms, 1)} |`,
    `| PostgreSQL connections | ${pair(start.postgresConnections, end.postgresConnections, 0)} |`,
    `| PostgreSQL connections 12 s later | ${rest.postgresConnections.join('; ')} |`,
    `| Redis used memory, MiB (shared) | ${start.redisMiB.toFixed(1)} → ${end.redisMiB.toFixed(1)} |`,
    `| Redis clients (shared) | ${start.redisClients} → ${end.redisClients} |`,
    `| async runs not completed | ${left} of ${asyncRuns.length} |`,
  );
  console.log(lines.join('\n'));

  const problems: string[] = [];
  end.heapMiB.forEach((heap, i) => {
    if (heap > start.heapMiB[i]! * 1.5 && heap - start.heapMiB[i]! > 20)
      problems.push(
        `instance ${i} heap grew ${start.heapMiB[i]!.toFixed(1)} → ${heap.toFixed(1)} MiB`,
      );
  });
  end.postgresConnections.forEach((n, i) => {
    if (n > 12)
      problems.push(`instance ${i} holds ${n} PostgreSQL connections (its pool: 10, pipelined: 2)`);
  });
  rest.postgresConnections.forEach((n, i) => {
    if (n > Math.max(start.postgresConnections[i]!, 2))
      problems.push(`instance ${i} still holds ${n} PostgreSQL connections at rest`);
  });
  if (end.redisClients > start.redisClients) problems.push('Redis clients grew');
  const serverErrors = [...failures.values()].flatMap((byStatus) =>
    [...byStatus].filter(([status]) => status === 0 || status >= 500),
  );
  if (serverErrors.length > 0) problems.push('some requests failed with a 5xx or a network error');
  if (left > 0) problems.push(`${left} async runs did not complete`);
  if (problems.length > 0) {
    console.error(`NOT FLAT:\n- ${problems.join('\n- ')}`);
    process.exitCode = 1;
  }
} finally {
  await Promise.all(apps.map((app) => app.close()));
  await postgres.query(
    "DELETE FROM agent_chat_messages WHERE conversation_id LIKE '%' || $1 || '%'",
    [`soak-${run}`],
  );
  await postgres.end();
  await redis.quit();
  await llm.stop();
}
