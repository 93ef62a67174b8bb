import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import type { LongtermMemoryModuleOptions } from '../../src/modules/longterm/longterm.options.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type PgvectorServer, startPgvectorServer } from '../support/pglite-server.js';
import { recallHarness } from '../support/recall-harness.js';
import { TEST_POSTGRES_URL, tempDir } from '../support/test-databases.js';

const { boot, closeAll } = recallHarness();
const embedder = new HashingEmbeddingModel({ dimensions: 64 });

describe('LongtermMemoryModule recall.pgvector on PostgreSQL with pgvector (PGlite)', () => {
  let server: PgvectorServer;
  let dataSource: DataSource;
  beforeAll(async () => {
    server = await startPgvectorServer();
    // One connection: PGlite runs one session, shared by every connection's prepared statements.
    dataSource = await new DataSource({
      type: 'postgres',
      url: server.url,
      poolSize: 1,
    }).initialize();
  }, 60_000);
  afterAll(async () => {
    await closeAll();
    await dataSource.destroy();
    await server.stop();
  });
  const open = (options: Partial<LongtermMemoryModuleOptions>) =>
    boot({ dataSource, ...options, recall: { embedder, backfill: false, ...options.recall } });

  it('gives vectors saved before pgvector their column, then ranks with pgvector through the HNSW index', async () => {
    const before = await open({ recall: { pgvector: false } });
    expect((before.store as PostgresLongtermStore).usesPgvector).toBe(false);
    const seq = await before.nextSeq('ada');
    await before.saveMany([
      { entityId: 'ada', key: 'pets', value: 'Ada has two cats, Oliver and Bailey', seq },
      { entityId: 'ada', key: 'job', value: 'Ada is a school counselor', seq },
    ]);
    await closeAll();

    const service = await open({ recall: { pgvector: { hnsw: { dimensions: 64 } } } });
    expect((service.store as PostgresLongtermStore).usesPgvector).toBe(true);
    const [hit] = await service.recall('ada', 'cats named Oliver', { mode: 'vector' });
    expect(hit).toMatchObject({ record: { key: 'pets' }, vector: { rank: 1 } });
    // The same score as the exact scan computes from the stored bytes.
    const [query] = await embedder.embed(['cats named Oliver']);
    const [pets] = await embedder.embed(['Ada has two cats, Oliver and Bailey']);
    const norm = (v: number[]) => Math.hypot(...v);
    const cosine =
      query!.reduce((sum, x, i) => sum + x * pets![i]!, 0) / norm(query!) / norm(pets!);
    expect(hit!.vector!.score).toBeCloseTo(cosine, 5);

    // Many rows of one entity: PostgreSQL can serve the nearest query from the HNSW index.
    const many = Array.from({ length: 300 }, (_, i) => ({
      entityId: 'crowd',
      key: `k${i}`,
      value: `note ${i} about topic ${i % 17}`,
      seq: 1,
    }));
    await service.saveMany(many);
    expect(
      (await dataSource.query(
        "SELECT indexname FROM pg_indexes WHERE indexname = 'agent_longterm_records_hnsw_64'",
      )) as unknown[],
    ).toHaveLength(1);
    await dataSource.query('SET enable_seqscan = off');
    await dataSource.query('SET enable_sort = off');
    const [probe] = await embedder.embed(['topic 3']);
    const literal = `'[${probe!.join(',')}]'`;
    const plan = (
      (await dataSource.query(
        `EXPLAIN SELECT key FROM agent_longterm_records WHERE entity_id = 'crowd'
          AND vector_dims(embedding_vector) = 64
          ORDER BY embedding_vector::vector(64) <=> ${literal}::vector(64) LIMIT 5`,
      )) as Array<{ 'QUERY PLAN': string }>
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    await dataSource.query('RESET enable_seqscan');
    await dataSource.query('RESET enable_sort');
    expect(plan).toContain('agent_longterm_records_hnsw_64');
    const hits = await service.recall('crowd', 'topic 3', { mode: 'vector', k: 5 });
    expect(hits).toHaveLength(5);
  });
});

describe('LongtermMemoryModule recall.pgvector where pgvector is not', () => {
  it('fails the start when pgvector is required but not installed, or not PostgreSQL', async () => {
    const noExtension = await rejectionOf(
      boot({ uri: TEST_POSTGRES_URL, recall: { pgvector: true } }),
    );
    expect((noExtension as Error).message).toContain('the vector extension is not installed');
    const sqlite = await rejectionOf(
      boot({ uri: `sqlite:${join(tempDir(), 'pgvector.sqlite')}`, recall: { pgvector: true } }),
    );
    expect((sqlite as Error).message).toContain('recall.pgvector is for PostgreSQL');
    const memory = await rejectionOf(boot({ uri: 'memory://', recall: { pgvector: true } }));
    expect((memory as Error).message).toContain('recall.pgvector is for PostgreSQL');
  });

  it('uses the exact scan on a PostgreSQL without pgvector when pgvector is left unset', async () => {
    const service = await boot({ uri: TEST_POSTGRES_URL, recall: { embedder, backfill: false } });
    expect((service.store as PostgresLongtermStore).usesPgvector).toBe(false);
  });

  it('refuses a malformed pgvector option, naming it', async () => {
    for (const [pgvector, option] of [
      ['yes', 'recall.pgvector'],
      [{ hnsw: {} }, 'recall.pgvector.hnsw.dimensions'],
      [{ hnsw: { dimensions: 2_001 } }, 'recall.pgvector.hnsw.dimensions'],
      [{ hnsw: { dimensions: 64 }, ivf: true }, 'recall.pgvector.ivf'],
    ] as const) {
      const error = await rejectionOf(
        Test.createTestingModule({
          imports: [
            (
              await import('../../src/modules/longterm/longterm.module.js')
            ).LongtermMemoryModule.forRoot({
              uri: 'memory://',
              recall: { pgvector: pgvector as never },
            }),
          ],
        }).compile(),
      );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(option);
    }
  });
});
