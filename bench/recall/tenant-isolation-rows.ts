import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import type { EmbeddingModel } from '../../src/modules/longterm/recall/embedding/embedding-model.interface.js';
import { compareRow, measurePair } from '../support/measure.js';
import type { RecallFloor } from './latency-floors.js';

/** How many rows other entities hold in the crowded table (`BENCH_CROWD`, default 100,000). */
export const CROWD = Number(process.env.BENCH_CROWD ?? 100_000);

/**
 * One tenant's recall beside a crowded table: a one-record entity's text search for a word that
 * `CROWD` rows of 100 other entities also hold, against the same search on a store where the entity
 * is alone. A ratio near 1 means a recall's cost depends on the entity's own data only.
 */
export async function crowdedTableRow(
  name: string,
  crowded: LongtermMemoryStore,
  alone: LongtermMemoryStore,
  run: string,
  analyze: () => Promise<void> = async () => undefined,
): Promise<string> {
  const entityId = `${run}-tiny`;
  for (let at = 0; at < CROWD; at += 1_000)
    await crowded.saveMany(
      Array.from({ length: Math.min(1_000, CROWD - at) }, (_, i) => ({
        entityId: `${run}-crowd-${(at + i) % 100}`,
        key: `fact/${at + i}`,
        value: `the crowd row ${at + i} says the same words as the others`,
        seq: 1,
      })),
    );
  for (const store of [crowded, alone])
    await store.save({ entityId, key: 'only', value: 'the one record of a small entity', seq: 1 });
  // The planner's statistics settled after the load, as a server's autovacuum does in time.
  await analyze();
  const pair = await measurePair(
    () => crowded.searchText(entityId, 'the words', { limit: 10 }),
    () => alone.searchText(entityId, 'the words', { limit: 10 }),
    200,
  );
  for (let i = 0; i < 100; i += 1) await crowded.deleteEntity(`${run}-crowd-${i}`);
  for (const store of [crowded, alone]) await store.deleteEntity(entityId);
  return compareRow(
    name,
    `text search of a 1-record entity, ${CROWD.toLocaleString('en')} rows of others beside it (floor: alone)`,
    pair,
  );
}

/**
 * Vector recall over large values: 200 records of 200 KB, exact scan, against the floor (the raw
 * scan of keys and vectors, then the best 10 values). The store must not read the other values.
 */
export async function largeValueRow(
  name: string,
  store: LongtermMemoryStore,
  floor: (values: Map<string, string>, vectors: Map<string, Float32Array>) => Promise<RecallFloor>,
  embedder: EmbeddingModel,
  run: string,
): Promise<string> {
  const entityId = `${run}-large`;
  const stored = new Map<string, Float32Array>();
  const values = new Map<string, string>();
  const filler = 'lorem ipsum dolor sit amet '.repeat(7_600);
  for (let at = 0; at < 200; at += 20) {
    const texts = Array.from({ length: 20 }, (_, i) => `record ${at + i} about topic ${i % 7}`);
    const vectors = await embedder.embed(texts);
    vectors.forEach((vector, i) => {
      stored.set(`big/${at + i}`, Float32Array.from(vector));
      values.set(`big/${at + i}`, `${texts[i]} ${filler}`);
    });
    await store.saveMany(
      texts.map((text, i) => ({
        entityId,
        key: `big/${at + i}`,
        value: `${text} ${filler}`,
        seq: 1,
        embedding: { model: embedder.id, vector: vectors[i]! },
      })),
    );
  }
  const [query] = await embedder.embed(['topic 3']);
  const vector = Float32Array.from(query!);
  const raw = await floor(values, stored);
  const pair = await measurePair(
    () => store.searchVector(entityId, vector, { model: embedder.id, limit: 10 }),
    () => raw.vector(entityId, vector),
    50,
  );
  await raw.close();
  await store.deleteEntity(entityId);
  return compareRow(name, 'vector search, 200 records of 200 KB (exact)', pair);
}
