import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, rmSync } from 'node:fs';
import { PeopleRecallController, RecallModule } from '../../examples/recall.module.js';
import { AgentService, LongtermMemoryService } from '../../src/index.js';

describe('guide example: RecallModule (recall by words and by meaning)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    rmSync('./data/recall.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    moduleRef = await Test.createTestingModule({ imports: [RecallModule] }).compile();
    await moduleRef.init();
  });
  afterAll(async () => {
    await moduleRef.close();
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
