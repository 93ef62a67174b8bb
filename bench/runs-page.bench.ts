/**
 * Runs page benchmark (`npm run bench:runs`; `npm run bench:runs -- postgres` for some backends).
 *
 * A conversation's runs are listed through an ordered index: `limit` rows, whatever the number of
 * runs. Per backend, one conversation with 10 runs and one with 10,000; times the first page of
 * `limit=1` (what `GET /conversations/:id/runs?limit=1` reads: one index page, one record) on each,
 * alternating with a floor doing the minimal same work through the store (two point reads: an index
 * row and a record), and prints p50/p99 and the 10,000/10 ratio, which shows whether a page scans
 * the conversation's runs.
 */
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { InMemoryRunStore } from '../src/modules/agent/runs/in-memory.run-store.js';
import { RedisRunStore } from '../src/modules/agent/runs/redis.run-store.js';
import { RunOwnership } from '../src/modules/agent/runs/run-ownership.js';
import { RunRecords } from '../src/modules/agent/runs/run-records.js';
import type { RunStore } from '../src/modules/agent/runs/run-store.interface.js';
import { SqlRunStore } from '../src/modules/agent/runs/sql.run-store.js';
import { AGENT_RUNS_SCHEMA } from '../src/modules/agent/runs/schema/agent-runs.schema.js';
import { ConnectionRegistry } from '../src/modules/connections/connection-registry.js';
import type { SqlTarget } from '../src/modules/connections/sql/sql-target.js';
import { measureRotating } from './support/measure.js';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ITERATIONS = Number(process.env.BENCH_RUNS_ITERATIONS ?? 1000);
const MANY = 10_000;

const registry = new ConnectionRegistry();
const sql = (target: SqlTarget) => async (): Promise<RunStore> =>
  new SqlRunStore(
    (await registry.acquireSql(target, { migrationsRun: true, schema: AGENT_RUNS_SCHEMA })).value,
  );
const backends: Record<string, () => Promise<RunStore>> = {
  memory: async () => new InMemoryRunStore(undefined, undefined, 20_000),
  sqlite: sql({ dialect: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'bench-')), 'r.sqlite') }),
  postgres: sql({ dialect: 'postgres', url: POSTGRES_URL }),
  mysql: sql({ dialect: 'mysql', url: MYSQL_URL }),
  redis: async () =>
    new RedisRunStore(
      (await registry.acquireRedis(REDIS_URL)).value,
      `bench:runs:${randomUUID()}:`,
    ),
};

/** A conversation with `count` runs, each claimed and recorded as the agent does. */
async function conversationWith(store: RunStore, count: number): Promise<string> {
  const ownership = new RunOwnership(store);
  const records = new RunRecords(store);
  const conversationId = `bench-${count}-${randomUUID()}`;
  for (let i = 0; i < count; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async (_, k) => {
        const runId = `${conversationId}-r${i + k}`;
        await ownership.claim(runId, conversationId);
        await records.set(runId, conversationId, 'completed', {});
      }),
    );
  return conversationId;
}

const wanted = process.argv.slice(2);
console.log(
  '| backend | runs | page p50 ms | page p99 ms | floor p50 ms | floor p99 ms | p50 ratio |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, open] of Object.entries(backends)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const store = await open();
  const ownership = new RunOwnership(store);
  const records = new RunRecords(store);
  const few = await conversationWith(store, 10);
  const many = await conversationWith(store, MANY);
  const page = (conversationId: string) => async () => {
    const [entry] = await ownership.page(conversationId, 1);
    return records.get(entry!.runId);
  };
  const probe = `${few}-r3`;
  const result = await measureRotating(
    {
      few: page(few),
      many: page(many),
      floor: () => Promise.all([store.get(probe, 'claimedAt'), store.get(probe, 'status')]),
    },
    ITERATIONS,
  );
  for (const [label, runs] of [
    ['few', 10],
    ['many', MANY],
  ] as const) {
    const m = result[label];
    console.log(
      `| ${name} | ${runs} | ${m.p50Ms.toFixed(3)} | ${m.p99Ms.toFixed(3)} | ${result.floor.p50Ms.toFixed(3)} | ${result.floor.p99Ms.toFixed(3)} | ${(m.p50Ms / result.floor.p50Ms).toFixed(2)}× |`,
    );
  }
  console.log(
    `| ${name} | 10,000 / 10 | ${(result.many.p50Ms / result.few.p50Ms).toFixed(2)}× | | | | |`,
  );
}
await registry.onApplicationShutdown();
