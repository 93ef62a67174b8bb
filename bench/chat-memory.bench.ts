/**
 * Chat memory benchmark (`npm run bench`; `npm run bench -- postgres redis` for some backends).
 *
 * Per backend, in one run, against a raw-driver floor doing the minimal same work on the store's own
 * table (bench/support/floors.ts), calls alternating one by one:
 * - `add` of one message (store: validation, id, idempotency check, version row, one round trip;
 *   floor: one INSERT / RPUSH), sequential, p50/p99 and throughput;
 * - `tail(20)` on a 10,000-message and on a 100,000-message conversation (floor: `ORDER BY seq DESC
 *   LIMIT 20` / `LRANGE -20 -1`), and the 100k/10k ratio, which shows whether reads scan history.
 *
 * Needs the services of DEVELOPERS.md (override with TEST_POSTGRES_URL, TEST_MYSQL_URL,
 * TEST_REDIS_URL). Prints a Markdown table for the README.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { ChatMemoryModule } from '../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryModuleOptions } from '../src/modules/chat-memory/chat-memory.options.js';
import type { ChatMemoryStore } from '../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import type { ChatMessage } from '../src/common/messages/chat-message.interface.js';
import {
  type Floor,
  mysqlFloor,
  postgresFloor,
  redisFloor,
  sqliteFloor,
} from './support/floors.js';
import { TABLE_HEADER, compareRow, measurePair } from './support/measure.js';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SQLITE_PATH = join(mkdtempSync(join(tmpdir(), 'bench-')), 'bench.sqlite');

const ADD_ITERATIONS = Number(process.env.BENCH_ADD_ITERATIONS ?? 3000);
const TAIL_ITERATIONS = Number(process.env.BENCH_TAIL_ITERATIONS ?? 3000);
const SEED_BATCH = 500;

interface Backend {
  name: string;
  options: ChatMemoryModuleOptions;
  floor: () => Promise<Floor>;
}

const BACKENDS: Backend[] = [
  {
    name: 'postgres',
    options: { backend: 'postgres', url: POSTGRES_URL },
    floor: () => postgresFloor(POSTGRES_URL),
  },
  {
    name: 'mysql',
    options: { backend: 'mysql', url: MYSQL_URL },
    floor: () => mysqlFloor(MYSQL_URL),
  },
  {
    name: 'sqlite',
    options: { backend: 'sqlite', path: SQLITE_PATH },
    floor: () => sqliteFloor(SQLITE_PATH),
  },
  {
    name: 'redis',
    options: { backend: 'redis', url: REDIS_URL, keyPrefix: 'bench:chat:' },
    floor: () => redisFloor(REDIS_URL, 'bench:chat:'),
  },
];

function message(i: number): ChatMessage {
  return {
    role: 'user',
    content: `benchmark message number ${i}, with a little text to make it typical`,
  };
}

/** A message as the store writes it (id and JSON), so the floor writes as much. */
function storedRow(i: number): { id: string; json: string } {
  const id = randomUUID();
  return { id, json: JSON.stringify({ id, ...message(i) }) };
}

async function seed(store: ChatMemoryStore, size: number): Promise<string> {
  const conversationId = `bench-tail-${size}-${randomUUID()}`;
  for (let from = 0; from < size; from += SEED_BATCH) {
    const count = Math.min(SEED_BATCH, size - from);
    await store.add(
      conversationId,
      Array.from({ length: count }, (_, k) => message(from + k)),
    );
  }
  return conversationId;
}

async function benchBackend(backend: Backend): Promise<string[]> {
  const app = await NestFactory.createApplicationContext(
    ChatMemoryModule.forRoot(backend.options),
    { logger: ['error'] },
  );
  const store = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
  const floor = await backend.floor();
  const cleanup: string[] = [];
  try {
    const adds = { library: `bench-add-${randomUUID()}`, floor: `bench-add-floor-${randomUUID()}` };
    cleanup.push(adds.library);
    let floorSeq = 0;
    const add = await measurePair(
      (i) => store.add(adds.library, [message(i)]),
      (i) => {
        const row = storedRow(i);
        return floor.insert(adds.floor, (floorSeq += 1), row.id, row.json);
      },
      ADD_ITERATIONS,
    );
    const rows = [compareRow(backend.name, 'add (1 message)', add)];
    const tails: Array<{ size: number; p50: number; floorP50: number }> = [];
    for (const size of [10_000, 100_000]) {
      const conversationId = await seed(store, size);
      cleanup.push(conversationId);
      await floor.settle();
      // Both sides must read the same messages, or the ratio compares different work.
      const [mine, theirs] = [
        await store.tail(conversationId, 20),
        (await floor.tail20(conversationId)) as unknown[],
      ];
      if (mine.length !== 20 || theirs.length !== 20)
        throw new Error(
          `tail read ${mine.length} messages, the floor ${theirs.length}; expected 20`,
        );
      const tail = await measurePair(
        () => store.tail(conversationId, 20),
        () => floor.tail20(conversationId),
        TAIL_ITERATIONS,
      );
      rows.push(compareRow(backend.name, `tail(20) of ${size.toLocaleString('en')}`, tail));
      tails.push({ size, p50: tail.library.p50Ms, floorP50: tail.floor.p50Ms });
    }
    const [small, large] = tails as [(typeof tails)[0], (typeof tails)[0]];
    rows.push(
      `| ${backend.name} | tail(20) 100k ÷ 10k p50 | ${(large.p50 / small.p50).toFixed(2)}× | | | ${(large.floorP50 / small.floorP50).toFixed(2)}× (floor) | | | |`,
    );
    return rows;
  } finally {
    for (const conversationId of cleanup) await store.clear(conversationId);
    await floor.close();
    await app.close();
  }
}

const selected = process.argv.slice(2);
const rows: string[] = [];
for (const backend of BACKENDS.filter((b) => selected.length === 0 || selected.includes(b.name))) {
  process.stderr.write(`benchmarking ${backend.name}…\n`);
  rows.push(...(await benchBackend(backend)));
}
console.log(
  `Node ${process.version}, ${ADD_ITERATIONS} adds and ${TAIL_ITERATIONS} tails per side, one call in flight\n`,
);
console.log(TABLE_HEADER);
console.log(rows.join('\n'));
