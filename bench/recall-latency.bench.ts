/**
 * Recall latency (`npm run bench:recall-latency`; `-- memory sqlite postgres mysql redis pgvector`
 * to pick (`pgvector`: PostgreSQL with pgvector and an HNSW index, on PGlite in process, since
 * pgvector is not packaged for the machine's PostgreSQL; not in the default set),
 * `BENCH_SIZES=1000,10000,100000`). Per backend and entity size: the store's text search and vector
 * search (limit 10; exact scan of 256-dimension vectors) against the backend's raw queries on the
 * same rows (see recall/latency-floors.ts), calls alternating, p50/p99 and the p50 ratio; then the
 * write path: `saveMany` of 1,000 records with their words indexed against the same store with text
 * search off (`textSearch: false`), once with new texts each round and once saved again as they were.
 */
import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectionRegistry } from '../src/modules/connections/connection-registry.js';
import { sqliteHandle } from '../src/modules/connections/sql/sqlite-handle.js';
import { InMemoryLongtermStore } from '../src/modules/longterm/backends/in-memory.longterm.store.js';
import { MysqlLongtermStore } from '../src/modules/longterm/backends/mysql.longterm.store.js';
import { PostgresLongtermStore } from '../src/modules/longterm/backends/postgres.longterm.store.js';
import { RedisLongtermStore } from '../src/modules/longterm/backends/redis.longterm.store.js';
import { SqliteLongtermStore } from '../src/modules/longterm/backends/sqlite.longterm.store.js';
import type { LongtermStoreSettings } from '../src/modules/longterm/backends/base-longterm.store.js';
import type { LongtermMemoryStore } from '../src/modules/longterm/interfaces/longterm-store.interface.js';
import { HashingEmbeddingModel } from '../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { LONGTERM_SCHEMA } from '../src/modules/longterm/schema/longterm.schema.js';
import { TextAnalyzer } from '../src/modules/longterm/recall/text-analyzer.js';
import {
  type RecallFloor,
  memoryFloor,
  mysqlFloor,
  pgvectorFloor,
  postgresFloor,
  redisFloor,
  sqliteFloor,
} from './recall/latency-floors.js';
import { compareRow, measurePair, TABLE_HEADER } from './support/measure.js';
import { pgvectorStore, startPgvectorServer } from '../test/support/pglite-server.js';
import { createFreshDatabase } from '../test/support/fresh-database.js';
import { crowdedTableRow, largeValueRow } from './recall/tenant-isolation-rows.js';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const BACKENDS =
  process.argv.slice(2).length > 0
    ? process.argv.slice(2)
    : ['memory', 'sqlite', 'postgres', 'mysql', 'redis'];
const run = `recall-bench-${Date.now()}`;
const DIMENSIONS = 256;
const embedder = new HashingEmbeddingModel({ dimensions: DIMENSIONS });

/** A deterministic pseudo-random stream. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
/** Letters-only words, three in four with an ending the English stemmer takes off. */
const VOCABULARY = Array.from({ length: 5_000 }, (_, i) => {
  let base = '';
  for (let n = i + 26 * 26; n > 0; n = Math.floor(n / 26))
    base += String.fromCharCode(97 + (n % 26));
  return `${base}${['', 's', 'ed', 'ing'][(i * 7919) % 4]}`;
});
/** A word, Zipf-distributed over the vocabulary (rank 1 the most frequent). */
const word = (next: () => number) =>
  VOCABULARY[Math.min(VOCABULARY.length - 1, Math.floor(VOCABULARY.length ** next()) - 1)]!;
const sentence = (next: () => number, n: number) =>
  Array.from({ length: n }, () => word(next)).join(' ');

interface Backend {
  store(settings?: LongtermStoreSettings): LongtermMemoryStore;
  /** Refreshes the planner's statistics after a load (what autovacuum does on a server, in time). */
  analyze?(): Promise<void>;
  floor(texts: Map<string, string>, vectors: Map<string, Float32Array>): Promise<RecallFloor>;
  stop?(): Promise<void>;
}

/** Opens a backend; `fresh`: on a database of its own (PostgreSQL, MariaDB: a new one, dropped at stop). */
async function open(name: string, registry: ConnectionRegistry, fresh = false): Promise<Backend> {
  if (name === 'memory') {
    return {
      store: (settings) => new InMemoryLongtermStore(settings),
      floor: async (t, v) => memoryFloor(t, v),
    };
  }
  if (name === 'pgvector') {
    const server = await startPgvectorServer();
    const { dataSource, store } = await pgvectorStore(registry, server.url, DIMENSIONS);
    return {
      store,
      floor: async () => pgvectorFloor(server.url, DIMENSIONS),
      analyze: async () => void (await dataSource.query('ANALYZE agent_longterm_records')),
      stop: () => server.stop(),
    };
  }
  if (name === 'redis') {
    const client = (await registry.acquireRedis(REDIS_URL)).value;
    return {
      store: (settings) => new RedisLongtermStore(client, `${run}:`, settings),
      floor: async () => redisFloor(REDIS_URL, `${run}:`),
    };
  }
  const server = name === 'postgres' ? 'postgres' : 'mysql';
  const database = fresh && name !== 'sqlite' ? await createFreshDatabase(server) : undefined;
  const target =
    name === 'sqlite'
      ? ({
          dialect: 'sqlite',
          path: join(mkdtempSync(join(tmpdir(), 'recall-bench-')), 'bench.sqlite'),
        } as const)
      : name === 'postgres'
        ? ({ dialect: 'postgres', url: database?.url ?? POSTGRES_URL } as const)
        : ({ dialect: 'mysql', url: database?.url ?? MYSQL_URL } as const);
  const { dataSource } = (
    await registry.acquireSql(target, { migrationsRun: true, schema: LONGTERM_SCHEMA })
  ).value;
  const make = {
    sqlite: SqliteLongtermStore,
    postgres: PostgresLongtermStore,
    mysql: MysqlLongtermStore,
  }[name as 'sqlite'];
  return {
    store: (settings) => new make(dataSource, settings),
    ...(name === 'postgres'
      ? { analyze: async () => void (await dataSource.query('ANALYZE agent_longterm_records')) }
      : {}),
    floor: async () =>
      name === 'sqlite'
        ? sqliteFloor(sqliteHandle(dataSource) as never)
        : name === 'postgres'
          ? postgresFloor(POSTGRES_URL)
          : mysqlFloor(MYSQL_URL),
    ...(database ? { stop: () => database.drop() } : {}),
  };
}

const registry = new ConnectionRegistry();
const backends: Backend[] = [];
console.log(TABLE_HEADER);
for (const name of BACKENDS) {
  const backend = await open(name, registry);
  const store = backend.store();
  for (const size of SIZES) {
    const entityId = `${run}-${size}`;
    const next = random(size);
    const texts = new Map<string, string>();
    const vectors = new Map<string, Float32Array>();
    for (let at = 0; at < size; at += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, size - at) }, (_, i) => {
        const key = `fact/${String(at + i).padStart(7, '0')}`;
        const text = sentence(next, 12);
        texts.set(key, text);
        return { key, text };
      });
      const embedded = await embedder.embed(rows.map((row) => row.text));
      rows.forEach((row, i) => vectors.set(row.key, Float32Array.from(embedded[i]!)));
      await store.saveMany(
        rows.map((row, i) => ({
          entityId,
          key: row.key,
          value: row.text,
          seq: 1,
          embedding: { model: embedder.id, vector: embedded[i]! },
        })),
      );
    }
    await backend.analyze?.();
    const floor = await backend.floor(texts, vectors);
    const queries = Array.from({ length: 50 }, () => [word(next), word(next), word(next)]);
    const floorTerms = queries.map((query) => TextAnalyzer.english.queryTerms(query.join(' ')));
    const queryVectors = (await embedder.embed(queries.map((q) => q.join(' ')))).map((v) =>
      Float32Array.from(v),
    );
    const iterations = size >= 100_000 ? 30 : 200;
    const text = await measurePair(
      (i) =>
        store.searchText(entityId, queries[Math.abs(i) % queries.length]!.join(' '), { limit: 10 }),
      // The floor searches the terms the store searches (the words, and their stems).
      (i) => floor.text(entityId, floorTerms[Math.abs(i) % queries.length]!),
      iterations,
    );
    console.log(compareRow(name, `text search, ${size.toLocaleString('en')} records`, text));
    const vector = await measurePair(
      (i) =>
        store.searchVector(entityId, queryVectors[Math.abs(i) % queries.length]!, {
          model: embedder.id,
          limit: 10,
        }),
      (i) => floor.vector(entityId, queryVectors[Math.abs(i) % queries.length]!),
      size >= 100_000 ? 10 : 50,
    );
    console.log(
      compareRow(
        name,
        `vector search (${name === 'pgvector' ? 'HNSW' : 'exact'}, ${DIMENSIONS} d), ${size.toLocaleString('en')} records`,
        vector,
      ),
    );
    await floor.close();
    await store.deleteEntity(entityId);
  }
  console.log(
    await largeValueRow(
      name,
      store,
      (values, vectors) => backend.floor(values, vectors),
      embedder,
      run,
    ),
  );
  // Two fresh stores (databases): one crowded by other entities, one where the small entity is
  // alone (the floor). Fresh, so nothing earlier rows left behind (deleted rows an index still
  // tracks) weighs on either.
  const [crowded, alone] = [await open(name, registry, true), await open(name, registry, true)];
  console.log(
    await crowdedTableRow(name, crowded.store(), alone.store(), run, async () => {
      await crowded.analyze?.();
      await alone.analyze?.();
    }),
  );
  backends.push(crowded, alone);
  // The write path: the same 1,000 rows with and without their words indexed, each round with new
  // texts (every row's words change) and saved again as they were (a new seq, the same text).
  const bare = backend.store({ analyzer: TextAnalyzer.off });
  for (const [label, textSeed] of [
    ['new text', (round: number, i: number) => i * 7919 + round * 104_729],
    ['same text', (_round: number, i: number) => i],
  ] as const) {
    const batch = (round: number, prefix: string) =>
      Array.from({ length: 1_000 }, (_, i) => ({
        entityId: `${run}-write-${label}-${prefix}`,
        key: `k/${i}`,
        value: sentence(random(textSeed(round, i)), 12),
        // Rising seqs (warm-up rounds are -1, -2, …): every save applies.
        seq: round < 0 ? -round : round + 1_000,
      }));
    const write = await measurePair(
      (i) => store.saveMany(batch(i, 'indexed')),
      (i) => bare.saveMany(batch(i, 'bare')),
      30,
    );
    console.log(compareRow(name, `saveMany 1,000, ${label} (index vs none)`, write));
    await store.deleteEntity(`${run}-write-${label}-indexed`);
    await store.deleteEntity(`${run}-write-${label}-bare`);
  }
  backends.push(backend);
}
await registry.onApplicationShutdown();
for (const backend of backends) await backend.stop?.();
