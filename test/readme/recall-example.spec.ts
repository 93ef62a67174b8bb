import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import request from 'supertest';
import { mkdirSync, rmSync } from 'node:fs';
import { PeopleRecallController, RecallModule } from '../../examples/recall.module.js';
import { AgentService, LongtermMemoryService } from '../../src/index.js';

describe('guide example: RecallModule (recall by words and by meaning)', () => {
  let moduleRef: TestingModule;
  let app: INestApplication;
  beforeAll(async () => {
    rmSync('./data/recall.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    moduleRef = await Test.createTestingModule({ imports: [RecallModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    rmSync('./data/recall.sqlite', { force: true });
  });

  it('recalls a person’s facts through the controller, and the agent turn runs with recall on', async () => {
    const longterm = moduleRef.get(LongtermMemoryService);
    const seq = await longterm.nextSeq('ada');
    await longterm.saveMany([
      { entityId: 'ada', key: 'facts/pets', value: 'Ada has two cats, Oliver and Bailey', seq },
      { entityId: 'ada', key: 'facts/job', value: 'Ada is a school counselor', seq },
      { entityId: 'ada', key: 'notes/cats', value: 'cats cats cats', seq },
    ]);
    const hits = await moduleRef
      .get(PeopleRecallController)
      .recall('ada', 'What are the cats called?');
    expect(hits[0]).toMatchObject({
      record: { key: 'facts/pets' },
      lexical: { rank: 1 },
      vector: { rank: 1 },
    });
    expect(hits.map((hit) => hit.record.key)).not.toContain('notes/cats');
    const result = await moduleRef
      .get(AgentService)
      .run({ conversationId: 'c1', entityId: 'ada', message: 'my cats?' });
    expect(result.version).toBe(2);
  });

  it('saves facts and recalls them over its routes, as the guide’s curl lines do', async () => {
    const http = () => request(app.getHttpServer());
    for (const [name, value] of [
      ['pets', 'Ada has two cats, Oliver and Bailey'],
      ['job', 'Ada is a school counselor'],
    ])
      expect(
        (await http().put(`/people/ada-3/facts/${name}`).send({ value }).expect(200)).body,
      ).toEqual({ applied: true });
    const hits = await http()
      .get('/people/ada-3/recall?q=What%20are%20the%20cats%20called')
      .expect(200);
    expect(hits.body[0]).toMatchObject({ record: { key: 'facts/pets' } });
  });

  it('ranks "Ada works at the aquarium" first for "where does she work?", on both lists', async () => {
    const longterm = moduleRef.get(LongtermMemoryService);
    const seq = await longterm.nextSeq('ada-2');
    await longterm.saveMany([
      { entityId: 'ada-2', key: 'facts/hobby', value: 'She painted the fence blue', seq },
      { entityId: 'ada-2', key: 'facts/job', value: 'Ada works at the aquarium', seq },
    ]);
    const hits = await moduleRef
      .get(PeopleRecallController)
      .recall('ada-2', 'where does she work?');
    // The question's function words ("where", "does", "she") count on neither list.
    expect(hits.map((hit) => hit.record.key)).toEqual(['facts/job']);
    expect(hits[0]).toMatchObject({ lexical: { rank: 1 }, vector: { rank: 1 } });
  });
});
