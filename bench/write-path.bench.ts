/**
 * Write path and Redis reads against raw floors (`npm run bench:write-path`; `-- <workload>…` for
 * some). Every workload runs in 3 fresh processes (this file with `--workload <name>`); the table
 * gives the medians. Inside a process the library and its floors alternate call by call (sequential
 * workloads) or round by round (concurrent ones), so the machine's noise falls on all alike.
 *
 * Ratios are time ratios, library ÷ floor: throughput rows compare msg/s (floor ÷ library), latency
 * rows compare p50. "plain" floors do the least a raw user writes; "guarded" floors are written by
 * hand with the raw driver and carry the store's guarantees (bench/support/write-path-floors.ts).
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  CHAT_MEMORY_STORE,
  ChatMemoryModule,
  type ChatMemoryModuleOptions,
  type ChatMemoryStore,
  RedisLongtermStore,
} from '../src/index.js';
import { deleteRedisKeys } from '../test/support/redis-cleanup.js';
import { ConnectionRegistry } from '../src/modules/connections/connection-registry.js';
import { longtermRedisKeys } from '../src/modules/longterm/backends/redis-keys.js';
import { NEVER_EXPIRES } from '../src/modules/longterm/backends/sql-row-format.js';
import { TextAnalyzer } from '../src/modules/longterm/recall/text-analyzer.js';
import {
  type Measurement,
  type Operation,
  measureConcurrent,
  measureRotating,
} from './support/measure.js';
import {
  chatRedisKeys,
  installPostgresGuardedAdd,
  messageText,
  postgresGuardedAdd,
  postgresPlainAdd,
  redisGuardedAdd,
  redisGuardedSave,
  redisGuardedSearch,
  redisPlainAdd,
  redisPlainSave,
  redisPlainSearch,
} from './support/write-path-floors.js';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** The pool size of the library's PostgreSQL connection (its default), given to the floors too. */
const POOL_SIZE = 10;
const run = `wp-${randomUUID().slice(0, 8)}`;

/** What one process measures: each side's figures, `library` first. */
type Sides = Record<string, Measurement>;

interface Workload {
  /** How the table names it. */
  label: string;
  backend: 'postgres' | 'redis';
  /** Throughput rows compare msg/s, latency rows p50. */
  compare: 'throughput' | 'p50';
  measure(): Promise<Sides>;
}

// ---------------------------------------------------------------- chat memory: add

async function chatStore(options: ChatMemoryModuleOptions) {
  const app = await NestFactory.createApplicationContext(ChatMemoryModule.forRoot(options), {
    logger: ['error'],
  });
  return { store: app.get<ChatMemoryStore>(CHAT_MEMORY_STORE), close: () => app.close() };
}

const chatOptions = (backend: 'postgres' | 'redis'): ChatMemoryModuleOptions =>
  backend === 'postgres'
    ? { backend, url: POSTGRES_URL }
    : { backend, url: REDIS_URL, keyPrefix: `${run}:chat:` };

/** The floors of `add` on one backend, on connections of their own (a pool for concurrency). */
async function addFloors(backend: 'postgres' | 'redis', concurrent: boolean) {
  if (backend === 'postgres') {
    await installPostgresGuardedAdd(POSTGRES_URL);
    const open = async () => {
      if (concurrent) return new pg.Pool({ connectionString: POSTGRES_URL, max: POOL_SIZE });
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      return client;
    };
    const [plainDb, guardedDb] = [await open(), await open()];
    return {
      plain: postgresPlainAdd(plainDb),
      guarded: postgresGuardedAdd(guardedDb),
      close: async () => {
        await plainDb.query(
          "DELETE FROM agent_chat_messages WHERE conversation_id LIKE $1 || '%'",
          [run],
        );
        await plainDb.end();
        await guardedDb.end();
      },
    };
  }
  const [plainClient, guardedClient] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  return {
    plain: redisPlainAdd(plainClient, `${run}:chat:`),
    guarded: redisGuardedAdd(guardedClient, `${run}:chat:`),
    close: async () => {
      await deleteRedisKeys(plainClient, `${run}:*`);
      await plainClient.quit();
      await guardedClient.quit();
    },
  };
}

/** `add` of one message per call, one call in flight: 20 conversations × 200 per side. */
function sequentialAdd(backend: 'postgres' | 'redis'): Workload {
  const conversations = 20;
  const perConversation = Number(process.env.BENCH_ADDS_PER_CONVERSATION ?? 200);
  return {
    label: `add 1 message/call, sequential, ${conversations} conversations × ${perConversation}`,
    backend,
    compare: 'throughput',
    async measure() {
      const { store, close } = await chatStore(chatOptions(backend));
      const floors = await addFloors(backend, false);
      try {
        const id = (side: string, i: number) =>
          `${run}-${side}-${((i % conversations) + conversations) % conversations}`;
        const library: Operation = (i) =>
          store.add(id('lib', i), [{ role: 'user', content: messageText(i) }]);
        const plain: Operation = (i) => floors.plain(id('plain', i));
        const guarded: Operation = (i) => floors.guarded(id('guarded', i));
        return await measureRotating({ library, plain, guarded }, conversations * perConversation);
      } finally {
        for (let c = 0; c < conversations; c += 1) await store.clear(`${run}-lib-${c}`);
        await floors.close();
        await close();
      }
    },
  };
}

/**
 * `add` of one message per call: 50 conversations × 8 writers × 50 messages each, all 400 writers
 * started at once (each writer's calls in sequence); rounds alternate between the sides.
 */
function concurrentAdd(backend: 'postgres' | 'redis'): Workload {
  const conversations = 50;
  const writersPerConversation = 8;
  const calls = Number(process.env.BENCH_CONCURRENT_CALLS ?? 50);
  return {
    label: `add, ${conversations} conversations × ${writersPerConversation} concurrent writers × ${calls} messages`,
    backend,
    compare: 'throughput',
    async measure() {
      const { store, close } = await chatStore(chatOptions(backend));
      const floors = await addFloors(backend, true);
      let round = 0;
      const conversation = (side: string, writer: number) =>
        `${run}-${side}-${round}-${writer % conversations}`;
      const sides: Record<string, (writer: number, call: number) => Promise<unknown>> = {
        library: (writer, call) =>
          store.add(conversation('lib', writer), [{ role: 'user', content: messageText(call) }]),
        plain: (writer) => floors.plain(conversation('plain', writer)),
        guarded: (writer) => floors.guarded(conversation('guarded', writer)),
      };
      const rounds: Record<string, Measurement[]> = { library: [], plain: [], guarded: [] };
      try {
        const names = Object.keys(sides);
        for (const name of names) await measureConcurrent(sides[name]!, 40, 5); // warm-up
        for (round = 1; round <= 3; round += 1) {
          for (let k = 0; k < names.length; k += 1) {
            const name = names[(round + k) % names.length]!;
            rounds[name]!.push(
              await measureConcurrent(sides[name]!, conversations * writersPerConversation, calls),
            );
          }
        }
        return Object.fromEntries(
          Object.entries(rounds).map(([name, all]) => [name, medianMeasurement(all)]),
        );
      } finally {
        for (let r = 0; r <= 3; r += 1)
          for (let c = 0; c < conversations; c += 1) await store.clear(`${run}-lib-${r}-${c}`);
        await floors.close();
        await close();
      }
    },
  };
}

// ---------------------------------------------------------------- chat memory: tail

/** `tail(20)` of a 10,000-message conversation vs `LRANGE -20 -1` on the same list. */
function redisTail(): Workload {
  return {
    label: 'tail(20) of a 10,000-message history',
    backend: 'redis',
    compare: 'p50',
    async measure() {
      const { store, close } = await chatStore(chatOptions('redis'));
      const client = new Redis(REDIS_URL);
      const conversationId = `${run}-tail`;
      try {
        for (let from = 0; from < 10_000; from += 500)
          await store.add(
            conversationId,
            Array.from({ length: 500 }, (_, k) => ({
              role: 'user' as const,
              content: messageText(from + k),
            })),
          );
        const [list] = chatRedisKeys(`${run}:chat:`, conversationId);
        const plain = async () =>
          (await client.lrange(list, -20, -1)).map((body) => JSON.parse(body) as unknown);
        if ((await store.tail(conversationId, 20)).length !== 20 || (await plain()).length !== 20)
          throw new Error('tail and its floor must both read 20 messages');
        return await measureRotating(
          { library: () => store.tail(conversationId, 20), plain },
          Number(process.env.BENCH_TAIL_ITERATIONS ?? 10_000),
        );
      } finally {
        await store.clear(conversationId);
        await client.quit();
        await close();
      }
    },
  };
}

// ---------------------------------------------------------------- long-term memory on Redis

const longtermValue = (i: number) => ({
  note: `fact number ${i}`,
  tags: ['bench', 'memory'],
  score: i % 97,
});

async function redisLongterm() {
  const registry = new ConnectionRegistry();
  const prefix = `${run}:lt:`;
  // Text search off: the floors index no words (bench:longterm gives the index its own row).
  const store = new RedisLongtermStore((await registry.acquireRedis(REDIS_URL)).value, prefix, {
    analyzer: TextAnalyzer.off,
  });
  const [plainClient, guardedClient] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
  return {
    store,
    prefix,
    plainClient,
    guardedClient,
    close: async () => {
      await deleteRedisKeys(plainClient, `${run}:*`);
      await plainClient.quit();
      await guardedClient.quit();
      await registry.onApplicationShutdown();
    },
  };
}

/** `search(entity, prefix, 50)` in one entity of 100,000 rows, a different prefix per call. */
function redisSearch(): Workload {
  const rows = 100_000;
  return {
    label: `search(entity, prefix, 50) of ${rows.toLocaleString('en')} rows`,
    backend: 'redis',
    compare: 'p50',
    async measure() {
      const lt = await redisLongterm();
      try {
        const entityId = `${run}-search`;
        const keys = longtermRedisKeys(lt.prefix, entityId);
        for (let start = 0; start < rows; start += 5_000) {
          const pipeline = lt.plainClient.pipeline();
          const fields: string[] = [];
          const members: Array<string | number> = [];
          for (let i = start; i < start + 5_000; i += 1) {
            const key = `item/${String(i).padStart(6, '0')}`;
            fields.push(key, `1:1:${NEVER_EXPIRES}:${JSON.stringify(longtermValue(i))}`);
            members.push(0, key);
          }
          await pipeline
            .hset(keys.records, ...fields)
            .zadd(keys.live, ...members)
            .exec();
        }
        // 100 prefixes of 1,000 rows each: `item/000`, `item/001`, …
        const prefixOf = (i: number) => `item/${String(Math.abs(i) % 100).padStart(3, '0')}`;
        const plainSearch = redisPlainSearch(lt.plainClient, lt.prefix);
        const guardedSearch = redisGuardedSearch(lt.guardedClient, lt.prefix);
        const counts = [
          (await lt.store.search(entityId, prefixOf(7), 50)).length,
          ((await plainSearch(entityId, prefixOf(7), 50)) as unknown[]).length,
          ((await guardedSearch(entityId, prefixOf(7), 50)) as unknown[]).length,
        ];
        if (counts.some((count) => count !== 50))
          throw new Error(`search and its floors must each find 50 rows, found ${counts}`);
        return await measureRotating(
          {
            library: (i) => lt.store.search(entityId, prefixOf(i), 50),
            plain: (i) => plainSearch(entityId, prefixOf(i), 50),
            guarded: (i) => guardedSearch(entityId, prefixOf(i), 50),
          },
          Number(process.env.BENCH_SEARCH_ITERATIONS ?? 5_000),
        );
      } finally {
        await lt.close();
      }
    },
  };
}

/** `saveMany` of 1,000 rows that all exist (updates), a higher seq each call. */
function redisSaveManyUpdate(): Workload {
  const size = 1_000;
  return {
    label: `saveMany ${size.toLocaleString('en')} rows, updates`,
    backend: 'redis',
    compare: 'p50',
    async measure() {
      const lt = await redisLongterm();
      try {
        // Each side builds its rows inside its timed call, in the shape its API takes.
        // (The floors write updatedAt 1 too.)
        const rowsAt = (seq: number, entityId = '') =>
          Array.from({ length: size }, (_, i) => ({
            entityId,
            key: `batch/${String(i).padStart(4, '0')}`,
            value: longtermValue(i),
            seq,
            updatedAt: 1,
          }));
        const plainSave = redisPlainSave(lt.plainClient, lt.prefix);
        const guardedSave = redisGuardedSave(lt.guardedClient, lt.prefix);
        const entity = (side: string) => `${run}-save-${side}`;
        let seq = 1;
        const library: Operation = () => lt.store.saveMany(rowsAt((seq += 1), entity('lib')));
        // The first call of each side inserts; every measured one updates.
        await library(0);
        await plainSave(entity('plain'), rowsAt(1));
        await guardedSave(entity('guarded'), rowsAt(1));
        return await measureRotating(
          {
            library,
            plain: () => plainSave(entity('plain'), rowsAt((seq += 1))),
            guarded: () => guardedSave(entity('guarded'), rowsAt((seq += 1))),
          },
          Number(process.env.BENCH_BATCH_ITERATIONS ?? 300),
        );
      } finally {
        await lt.close();
      }
    },
  };
}

// ---------------------------------------------------------------- orchestration

const WORKLOADS: Record<string, () => Workload> = {
  'postgres-add': () => sequentialAdd('postgres'),
  'redis-add': () => sequentialAdd('redis'),
  'postgres-add-concurrent': () => concurrentAdd('postgres'),
  'redis-add-concurrent': () => concurrentAdd('redis'),
  'redis-tail': redisTail,
  'redis-search': redisSearch,
  'redis-save-many': redisSaveManyUpdate,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function medianMeasurement(all: Measurement[]): Measurement {
  return {
    iterations: all[0]!.iterations,
    opsPerSecond: median(all.map((m) => m.opsPerSecond)),
    p50Ms: median(all.map((m) => m.p50Ms)),
    p99Ms: median(all.map((m) => m.p99Ms)),
  };
}

/** Library ÷ floor, as a time ratio (above 1: the library is slower). */
function ratio(workload: Workload, library: Measurement, floor: Measurement): number {
  return workload.compare === 'throughput'
    ? floor.opsPerSecond / library.opsPerSecond
    : library.p50Ms / floor.p50Ms;
}

function cell(workload: Workload, m: Measurement | undefined): string {
  if (!m) return '—';
  return workload.compare === 'throughput'
    ? `${m.opsPerSecond.toFixed(0)} msg/s (p50 ${m.p50Ms.toFixed(3)}, p99 ${m.p99Ms.toFixed(3)})`
    : `p50 ${m.p50Ms.toFixed(3)} ms, p99 ${m.p99Ms.toFixed(3)}`;
}

const workloadFlag = process.argv.indexOf('--workload');
if (workloadFlag !== -1) {
  const sides = await WORKLOADS[process.argv[workloadFlag + 1]!]!().measure();
  process.stdout.write(`${JSON.stringify(sides)}\n`);
} else {
  const selected = process.argv.slice(2);
  const names = Object.keys(WORKLOADS).filter((n) => !selected.length || selected.includes(n));
  const lines = [
    `Node ${process.version}; each row the median of ${RUNS} fresh processes`,
    '',
    '| backend | workload | library | plain floor | ratio | guarded floor | ratio |',
    '|---|---|---|---|---:|---|---:|',
  ];
  for (const name of names) {
    const workload = WORKLOADS[name]!();
    const runs: Sides[] = [];
    for (let r = 0; r < RUNS; r += 1) {
      process.stderr.write(`${name}: run ${r + 1} of ${RUNS}…\n`);
      const child = spawnSync(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), '--workload', name],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      if (child.status !== 0) throw new Error(`${name} failed (exit ${child.status})`);
      runs.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as Sides);
    }
    const side = (key: string) =>
      runs[0]![key] ? medianMeasurement(runs.map((sides) => sides[key]!)) : undefined;
    const ratioOf = (key: string) =>
      runs[0]![key]
        ? `${median(runs.map((sides) => ratio(workload, sides.library!, sides[key]!))).toFixed(2)}×`
        : '—';
    lines.push(
      `| ${workload.backend} | ${workload.label} | ${cell(workload, side('library'))} | ${cell(workload, side('plain'))} | ${ratioOf('plain')} | ${cell(workload, side('guarded'))} | ${ratioOf('guarded')} |`,
    );
    process.stderr.write(`${lines.at(-1)}\n`);
  }
  console.log(lines.join('\n'));
}
