import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  MemoryFormationModule,
  PeopleFactsController,
} from '../../examples/memory-formation.module.js';
import { AgentService } from '../../src/index.js';

describe('guide example: MemoryFormationModule (memories formed after each turn)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    rmSync('./data/formation.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    moduleRef = await Test.createTestingModule({ imports: [MemoryFormationModule] }).compile();
    await moduleRef.init();
  });
  afterAll(async () => {
    await moduleRef.close();
    rmSync('./data/formation.sqlite', { force: true });
  });

  it('forms a person’s memories from a turn, superseding what changed', async () => {
    const agent = moduleRef.get(AgentService);
    const facts = moduleRef.get(PeopleFactsController);
    /** The person's memories once `done` says they are formed (polled, at most 5 s). */
    const formed = async (done: (texts: string[]) => boolean) => {
      let texts: string[] = [];
      for (let i = 0; i < 200 && !done(texts); i += 1) {
        if (i > 0) await sleep(25);
        texts = (await facts.facts('ada')).map((m) => m.text).sort();
      }
      return texts;
    };
    await agent.run({
      conversationId: 'c1',
      entityId: 'ada',
      message: 'I live in Lyon. I like tea.',
    });
    expect(await formed((t) => t.length === 2)).toEqual([
      'The user likes tea',
      'The user lives in Lyon',
    ]);
    await agent.run({ conversationId: 'c1', entityId: 'ada', message: 'I moved to Nantes.' });
    expect(await formed((t) => t.includes('The user lives in Nantes'))).toEqual([
      'The user likes tea',
      'The user lives in Nantes',
    ]);
  });
});
