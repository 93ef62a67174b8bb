import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { appPerSuite, STORAGE_LAYOUTS } from '../support/app-harness.js';

const A = { Authorization: 'Bearer key-of-tenant-a-0001' };
const B = { Authorization: 'Bearer key-of-tenant-b-0001' };

/**
 * One tenant's recall does not depend on what another tenant stores: its hits and their order stay
 * the same when the other tenant fills the table with the query's words. On SQLite and MariaDB the
 * full-text index is partitioned by entity (before, every entity's postings were read and a word's
 * frequency was counted over the whole table); memory and Redis keep an index per entity and
 * PostgreSQL counts over the entity's rows.
 */
describe.each(STORAGE_LAYOUTS)('recall beside another tenant’s crowd on %s', (_label, layout) => {
  const running = appPerSuite(
    () => ({
      ...layout(),
      API_KEYS: 'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);

  it('ranks one tenant’s records the same whatever another tenant holds', async () => {
    const entity = `iso-${randomUUID().slice(0, 8)}`;
    // Two records, each matching one query word once, at equal lengths: a tie, broken by key.
    for (const [key, value] of [
      ['a-heron', 'grey heron waits'],
      ['b-egret', 'white egret waits'],
    ])
      await http().put(`/entities/${entity}/memories/${key}`).set(A).send({ value }).expect(200);
    const ranked = async () =>
      (
        await http()
          .get(`/entities/${entity}/recall?q=heron%20egret&mode=lexical`)
          .set(A)
          .expect(200)
      ).body.hits.map((hit: { key: string; lexical: { score: number } }) => hit.key);
    expect(await ranked()).toEqual(['a-heron', 'b-egret']);
    // Tenant B, same entity id, 300 records that hold "heron" (its own data, never shown to A).
    const crowd = Array.from({ length: 300 }, (_, i) => i);
    for (let at = 0; at < crowd.length; at += 50)
      await Promise.all(
        crowd.slice(at, at + 50).map((i) =>
          http()
            .put(`/entities/${entity}/memories/crowd-${i}`)
            .set(B)
            .send({ value: `heron number ${i}` })
            .expect(200),
        ),
      );
    // Were "heron" counted over the table, it would weigh less than "egret" and the order flip.
    expect(await ranked()).toEqual(['a-heron', 'b-egret']);
  });
});
