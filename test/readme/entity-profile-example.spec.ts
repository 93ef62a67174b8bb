import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { mkdirSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EntityProfileModule,
  PersonProfileController,
} from '../../examples/entity-profile.module.js';
import { AgentService } from '../../src/index.js';

describe('guide example: EntityProfileModule (a profile formation keeps)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    rmSync('./data/profile.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    moduleRef = await Test.createTestingModule({ imports: [EntityProfileModule] }).compile();
    await moduleRef.init();
  });
  afterAll(async () => {
    await moduleRef.close();
    rmSync('./data/profile.sqlite', { force: true });
  });

  it('fills a person’s profile from their turns, keeping what a later turn does not name', async () => {
    const agent = moduleRef.get(AgentService);
    const people = moduleRef.get(PersonProfileController);
    /** The profile once `done` says so (polled, at most 5 s). */
    const profile = async (done: (document: Record<string, unknown>) => boolean) => {
      let document: Record<string, unknown> = {};
      for (let i = 0; i < 200 && !done(document); i += 1) {
        if (i > 0) await sleep(25);
        document = await people.profile('ada').catch(() => ({}));
      }
      return document;
    };
    await agent.run({
      conversationId: 'c1',
      entityId: 'ada',
      message: 'My name is Ada. I work at Acme.',
    });
    expect(await profile((d) => d['employer'] !== undefined)).toEqual({
      name: 'Ada',
      employer: 'Acme',
    });
    await agent.run({ conversationId: 'c2', entityId: 'ada', message: 'I live in Lyon.' });
    expect(await profile((d) => d['city'] !== undefined)).toEqual({
      name: 'Ada',
      employer: 'Acme',
      city: 'Lyon',
    });
  });
});
