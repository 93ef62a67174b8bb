/**
 * Long-term memory benchmark (`npm run bench:longterm`; `-- postgres` or `-- redis` for one).
 * Against raw-driver floors on the same data layout, calls alternating:
 * - `saveMany` of 1,000 rows, an insert pass, an update pass (the same texts) and a change pass (one
 *   word of each text changed), vs a raw `unnest` upsert (PostgreSQL) or
 *   a raw pipeline of HSET+ZADD (Redis) — the floors write the same rows without the seq guard;
 *   on PostgreSQL also vs a guarded floor (bench/support/longterm-floors.ts) that carries the
 *   store's write guarantees (erasure lock and mark, seq guard, canonical JSON, text index);
 * - `search(prefix, 50)` over 100,000 rows in 100 entities vs a raw range scan (`key >= p AND key < p'
 *   ORDER BY key LIMIT 50` / `ZRANGEBYLEX` + `HMGET`), then again at 1,000,000 rows (100 × 10,000).
 * `BENCH_LONGTERM_SEARCH=0` measures the `saveMany` rows only.
 */
import 'reflect-metadata';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ConnectionRegistry } from '../src/modules/connections/connection-registry.js';
import { PostgresLongtermStore } from '../src/modules/longterm/backends/postgres.longterm.store.js';
import { RedisLongtermStore } from '../src/modules/longterm/backends/redis.longterm.store.js';
import type {
  LongtermMemoryStore,
  LongtermSaveInput,
} from '../src/modules/longterm/interfaces/longterm-store.interface.js';
import { NEVER_EXPIRES } from '../src/modules/longterm/backends/sql-row-format.js';
import { longtermRedisKeys } from '../src/modules/longterm/backends/redis-keys.js';
import { prefixUpperBound } from '../src/modules/longterm/validation/prefix-range.js';
import {
  type Operation,
  TABLE_HEADER,
  compareRow,
  measurePair,
  measureRotating,
} from './support/measure.js';
import { postgresGuardedSaveMany } from './support/longterm-floors.js';
import { LONGTERM_SCHEMA } from '../src/modules/longterm/schema/longterm.schema.js';
import { TextAnalyzer } from '../src/modules/longterm/recall/text-analyzer.js';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BATCH = 1_000;
const BATCH_ITERATIONS = Number(process.env.BENCH_BATCH_ITERATIONS ?? 150);
const SEARCH_ITERATIONS = Number(process.env.BENCH_SEARCH_ITERATIONS ?? 2_000);
const ENTITIES = 100;
const SEARCH = process.env.BENCH_LONGTERM_SEARCH !== '0';
const run = `bench-${Date.now()}`;

/** The raw floor of one backend. */
interface Floor {
  upsert(rows: LongtermSaveInput[]): Promise<unknown>;
  /** The guarded floor's upsert, where the backend has one. */
  guardedUpsert?(rows: LongtermSaveInput[]): Promise<unknown>;
  range(entityId: string, prefix: string, limit: number): Promise<unknown>;
  seed(entityId: string, rows: number, from: number): Promise<unknown>;
  clear(): Promise<void>;
}

/** Record `i`'s value; a later `version` changes one word of its note (the rest stay). */
const value = (i: number, version = 0) => ({
  note: version === 0 ? `fact number ${i}` : `fact number ${i} v${version}`,
  tags: ['bench', 'memory'],
  score: i % 97,
});
const batch = (entityId: string, round: number, seq: number, version = 0): LongtermSaveInput[] =>
  Array.from({ length: BATCH }, (_, i) => ({
    entityId,
    key: `batch/${round}/${String(i).padStart(4, '0')}`,
    value: value(i, version),
    seq,
    updatedAt: 1,
  }));

/**
 * A backend's floor and two stores: text search off (the floor's work) and indexing every row's
 * words (the default).
 */
interface Opened {
  store: LongtermMemoryStore;
  indexed: LongtermMemoryStore;
  floor: Floor;
}

async function postgres(registry: ConnectionRegistry): Promise<Opened> {
  const lease = await registry.acquireSql(
    { dialect: 'postgres', url: POSTGRES_URL },
    { migrationsRun: true, schema: LONGTERM_SCHEMA },
  );
  const store = new PostgresLongtermStore(lease.value.dataSource, { analyzer: TextAnalyzer.off });
  const indexed = new PostgresLongtermStore(lease.value.dataSource);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  const guarded = postgresGuardedSaveMany(client);
  const upsert = (rows: Array<[string, string, string, number, number, number]>) =>
    client.query({
      name: 'floor_upsert',
      text: `INSERT INTO agent_longterm_records AS r (entity_id, key, value, seq, updated_at, expires_at)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
        ON CONFLICT (entity_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq,
          updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
      values: [0, 1, 2, 3, 4, 5].map((c) => rows.map((row) => row[c])),
    });
  return {
    store,
    indexed,
    floor: {
      guardedUpsert: (rows) =>
        guarded(rows.map((r) => ({ ...r, entityId: `guarded-${r.entityId}` }))),
      upsert: (rows) =>
        upsert(
          rows.map((r) => [
            `floor-${r.entityId}`,
            r.key,
            JSON.stringify(r.value),
            r.seq,
            1,
            NEVER_EXPIRES,
          ]),
        ),
      range: async (entityId, prefix, limit) =>
        (
          await client.query({
            name: 'floor_range',
            text: `SELECT entity_id, key, value, seq, updated_at, expires_at FROM agent_longterm_records
              WHERE entity_id = $1 AND key >= $2 AND key < $3 ORDER BY key LIMIT $4`,
            values: [entityId, prefix, prefixUpperBound(prefix), limit],
          })
        ).rows.map((row: { value: string }) => JSON.parse(row.value) as unknown),
      seed: (entityId, rows, from) =>
        upsert(
          Array.from({ length: rows }, (_, i) => [
            entityId,
            `item/${String(from + i).padStart(7, '0')}`,
            JSON.stringify(value(i)),
            1,
            1,
            NEVER_EXPIRES,
          ]),
        ),
      clear: async () => {
        await client.query(
          "DELETE FROM agent_longterm_records WHERE entity_id LIKE $1 || '%' OR entity_id LIKE 'floor-' || $1 || '%' OR entity_id LIKE 'guarded-' || $1 || '%'",
          [run],
        );
        await client.query('VACUUM ANALYZE agent_longterm_records');
        await client.end();
      },
    },
  };
}

async function redis(registry: ConnectionRegistry): Promise<Opened> {
  const prefix = `${run}:lt:`;
  const connection = (await registry.acquireRedis(REDIS_URL)).value;
  const store = new RedisLongtermStore(connection, prefix, { analyzer: TextAnalyzer.off });
  const indexed = new RedisLongtermStore(connection, `${run}:ix:`);
  const client = new Redis(REDIS_URL);
  // The store's own key layout (hash tags from a digest of the id), computed once per entity.
  const layouts = new Map<string, ReturnType<typeof longtermRedisKeys>>();
  const layout = (entityId: string) => {
    let keys = layouts.get(entityId);
    if (!keys) layouts.set(entityId, (keys = longtermRedisKeys(prefix, entityId)));
    return keys;
  };
  const hash = (entityId: string) => layout(entityId).records;
  const zset = (entityId: string) => layout(entityId).live;
  const write = (entityId: string, rows: Array<[string, string]>) => {
    const pipeline = client.pipeline();
    pipeline.hset(hash(entityId), Object.fromEntries(rows));
    pipeline.zadd(zset(entityId), ...rows.flatMap(([key]) => [0, key]));
    return pipeline.exec();
  };
  return {
    store,
    indexed,
    floor: {
      upsert: (rows) =>
        write(
          `floor-${rows[0]!.entityId}`,
          rows.map((r) => [r.key, `${r.seq}:1:${NEVER_EXPIRES}:${JSON.stringify(r.value)}`]),
        ),
      range: async (entityId, p, limit) => {
        const upper = prefixUpperBound(p);
        const keys = await client.zrangebylex(
          zset(entityId),
          `[${p}`,
          upper === undefined ? '+' : `(${upper}`,
          'LIMIT',
          0,
          limit,
        );
        const records = keys.length ? await client.hmget(hash(entityId), ...keys) : [];
        return records.map(
          (record) =>
            JSON.parse(
              record!.slice(
                record!.indexOf(':', record!.indexOf(':', record!.indexOf(':') + 1) + 1) + 1,
              ),
            ) as unknown,
        );
      },
      seed: async (entityId, rows, from) => {
        for (let start = 0; start < rows; start += 5_000) {
          const count = Math.min(5_000, rows - start);
          await write(
            entityId,
            Array.from({ length: count }, (_, i) => [
              `item/${String(from + start + i).padStart(7, '0')}`,
              `1:1:${NEVER_EXPIRES}:${JSON.stringify(value(i))}`,
            ]),
          );
        }
      },
      clear: async () => {
        let cursor = '0';
        do {
          const [next, keys] = await client.scan(cursor, 'MATCH', `${run}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length) await client.del(...keys);
        } while (cursor !== '0');
        await client.quit();
      },
    },
  };
}

async function seedTo(floor: Floor, perEntity: number, from: number): Promise<void> {
  for (let e = 0; e < ENTITIES; e += 1) {
    for (let start = from; start < perEntity; start += 10_000)
      await floor.seed(`${run}-e${e}`, Math.min(10_000, perEntity - start), start);
  }
}

async function bench(name: string, open: typeof postgres): Promise<string[]> {
  const registry = new ConnectionRegistry();
  const { store, indexed, floor } = await open(registry);
  const rows: string[] = [];
  try {
    for (const label of ['insert', 'update', 'change'] as const) {
      // Each side counts its own batches: a new round of keys (insert) or a higher seq.
      const side = (
        write: (rows: LongtermSaveInput[]) => Promise<unknown>,
        entityId = `${run}-w`,
      ) => {
        let n = 0;
        return async () => {
          n += 1;
          if (label === 'insert') return write(batch(entityId, n, 1));
          // Saved again: the same texts (update), or one word of each changed (change).
          // The change pass takes the first insert round's keys (seq 1 there), so its rows apply.
          return write(
            label === 'change' ? batch(entityId, 1, n + 1, n) : batch(entityId, 0, n + 1),
          );
        };
      };
      const operations: Record<string, Operation> = {
        library: side((rows) => store.saveMany(rows)),
        indexed: side((rows) => indexed.saveMany(rows), `${run}-w-ix`),
        floor: side((rows) => floor.upsert(rows)),
      };
      if (floor.guardedUpsert) operations.guarded = side((rows) => floor.guardedUpsert!(rows));
      const sides = await measureRotating(operations, BATCH_ITERATIONS);
      const name0 = `saveMany ${BATCH} rows, ${label}`;
      rows.push(compareRow(name, name0, { library: sides.library!, floor: sides.floor! }));
      if (sides.guarded)
        rows.push(
          compareRow(name, `${name0}, indexed, vs guarded floor`, {
            library: sides.indexed!,
            floor: sides.guarded,
          }),
        );
      rows.push(
        compareRow(name, `${name0}: text index, indexed vs not`, {
          library: sides.indexed!,
          floor: sides.library!,
        }),
      );
    }
    if (!SEARCH) return rows;
    const searches: Record<number, { p50: number; floorP50: number }> = {};
    for (const [perEntity, from] of [
      [1_000, 0],
      [10_000, 1_000],
    ] as const) {
      await seedTo(floor, perEntity, from);
      // Both sides must find the same rows, or the ratio compares different work.
      const [mine, theirs] = [
        await store.search(`${run}-e0`, 'item/0000', 50),
        (await floor.range(`${run}-e0`, 'item/0000', 50)) as unknown[],
      ];
      if (mine.length !== 50 || theirs.length !== 50)
        throw new Error(
          `search found ${mine.length} rows, the floor ${theirs.length}; expected 50`,
        );
      let i = 0;
      const target = () => `${run}-e${i++ % ENTITIES}`;
      const search = await measurePair(
        () => store.search(target(), 'item/0000', 50),
        () => floor.range(`${run}-e${i % ENTITIES}`, 'item/0000', 50),
        SEARCH_ITERATIONS,
      );
      rows.push(
        compareRow(
          name,
          `search(prefix, 50), ${(perEntity * ENTITIES).toLocaleString('en')} rows`,
          search,
        ),
      );
      searches[perEntity] = { p50: search.library.p50Ms, floorP50: search.floor.p50Ms };
    }
    rows.push(
      `| ${name} | search 1M ÷ 100k p50 | ${(searches[10_000]!.p50 / searches[1_000]!.p50).toFixed(2)}× | | | ${(searches[10_000]!.floorP50 / searches[1_000]!.floorP50).toFixed(2)}× (floor) | | | |`,
    );
  } finally {
    await floor.clear();
    for (let e = 0; e < ENTITIES; e += 1)
      await store.deleteEntity(`${run}-e${e}`).catch(() => undefined);
    await store.deleteEntity(`${run}-w`);
    await indexed.deleteEntity(`${run}-w-ix`);
    await registry.onApplicationShutdown();
  }
  return rows;
}

const selected = process.argv.slice(2);
const out: string[] = [];
for (const [name, open] of [
  ['postgres', postgres],
  ['redis', redis],
] as const) {
  if (selected.length && !selected.includes(name)) continue;
  process.stderr.write(`benchmarking ${name}…\n`);
  out.push(...(await bench(name, open)));
}
console.log(
  `Node ${process.version}; ${BATCH_ITERATIONS} batches and ${SEARCH_ITERATIONS} searches per side, one call in flight\n`,
);
console.log(TABLE_HEADER);
console.log(out.join('\n'));
