import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import type { BaseLongtermStore } from '../../src/modules/longterm/backends/base-longterm.store.js';
import { InMemoryLongtermStore } from '../../src/modules/longterm/backends/in-memory.longterm.store.js';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { SqliteLongtermStore } from '../../src/modules/longterm/backends/sqlite.longterm.store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

const sql = async (target: Parameters<ConnectionRegistry['acquireSql']>[0]) =>
  (await registry.acquireSql(target, { migrationsRun: true, schema: LONGTERM_SCHEMA })).value
    .dataSource;

/** Every built-in backend with an exact vector scan. */
const BACKENDS: Array<[string, () => Promise<BaseLongtermStore>]> = [
  ['memory', async () => new InMemoryLongtermStore()],
  [
    'SQLite',
    async () =>
      new SqliteLongtermStore(
        await sql({ dialect: 'sqlite', path: join(tempDir(), 'vectors.sqlite') }),
      ),
  ],
  [
    'PostgreSQL',
    async () =>
      new PostgresLongtermStore(await sql({ dialect: 'postgres', url: TEST_POSTGRES_URL })),
  ],
  [
    'MariaDB',
    async () => new MysqlLongtermStore(await sql({ dialect: 'mysql', url: TEST_MYSQL_URL })),
  ],
  [
    'Redis',
    async () =>
      new RedisLongtermStore((await registry.acquireRedis(TEST_REDIS_URL)).value, 'test:vectors:'),
  ],
];

/** A unit vector along `axis` leaning a little towards axis 0 (`tilt`): its dot with e0 is `tilt`. */
function vector(tilt: number): number[] {
  return [tilt, Math.sqrt(1 - tilt * tilt), 0, 0];
}

/** The protected steps of a store's exact scan, watched; `afterScan` runs between the two. */
function watch(
  store: BaseLongtermStore,
  afterScan: () => Promise<unknown> = async () => undefined,
) {
  const steps = store as unknown as {
    readVectors(...args: unknown[]): Promise<Iterable<object>>;
    readMany(entityId: string, keys: string[], now: number): Promise<unknown[]>;
  };
  const scanned: object[] = [];
  const loaded: string[][] = [];
  const readVectors = steps.readVectors.bind(store);
  const readMany = steps.readMany.bind(store);
  jest.spyOn(steps, 'readVectors').mockImplementation(async (...args) => {
    const candidates = [...(await readVectors(...args))];
    scanned.push(...candidates);
    await afterScan();
    return candidates;
  });
  jest.spyOn(steps, 'readMany').mockImplementation(async (entityId, keys, now) => {
    loaded.push([...keys]);
    return readMany(entityId, keys, now);
  });
  return { scanned, loaded };
}

describe.each(BACKENDS)(
  'vector search reads values of the best hits only, on %s',
  (_label, open) => {
    const big = 'v'.repeat(100_000);

    it('scans keys and vectors, then loads the values of the `limit` best', async () => {
      const store = await open();
      const entityId = `vectors-${Math.random().toString(36).slice(2)}`;
      // 30 records of 100 KB: record i leans i/40 towards the query.
      await store.saveMany(
        Array.from({ length: 30 }, (_, i) => ({
          entityId,
          key: `k${String(i).padStart(2, '0')}`,
          value: `${i} ${big}`,
          seq: 1,
          embedding: { model: 'test-4d', vector: vector(i / 40) },
        })),
      );
      const { scanned, loaded } = watch(store);
      const hits = await store.searchVector(entityId, [1, 0, 0, 0], { model: 'test-4d', limit: 3 });
      expect(hits.map((hit) => hit.record.key)).toEqual(['k29', 'k28', 'k27']);
      expect(hits[0]!.record.value).toBe(`29 ${big}`);
      expect(hits[0]!.score).toBeCloseTo(29 / 40, 5);
      expect(scanned).toHaveLength(30);
      for (const candidate of scanned)
        expect(Object.keys(candidate).sort()).toEqual(['embedding', 'key']);
      expect(loaded).toEqual([['k29', 'k28', 'k27']]);
      await store.deleteEntity(entityId);
    });

    it('fills the page from the next best when a best one went between the scan and the load', async () => {
      const store = await open();
      const entityId = `vectors-${Math.random().toString(36).slice(2)}`;
      await store.saveMany(
        Array.from({ length: 10 }, (_, i) => ({
          entityId,
          key: `k${i}`,
          value: `${i}`,
          seq: 1,
          embedding: { model: 'test-4d', vector: vector(i / 20) },
        })),
      );
      const { loaded } = watch(store, () => store.delete(entityId, 'k9', 2));
      const hits = await store.searchVector(entityId, [1, 0, 0, 0], { model: 'test-4d', limit: 3 });
      expect(hits.map((hit) => hit.record.key)).toEqual(['k8', 'k7', 'k6']);
      expect(loaded[0]).toEqual(['k9', 'k8', 'k7']);
      await store.deleteEntity(entityId);
    });
  },
);
