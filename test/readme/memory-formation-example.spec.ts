import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdirSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { MemoryFormationModule } from '../../examples/memory-formation.module.js';

describe('guide example: MemoryFormationModule (memories formed after each turn)', () => {
  let app: INestApplication;
  beforeAll(async () => {
    rmSync('./data/formation.sqlite', { force: true });
    mkdirSync('./data', { recursive: true });
    const moduleRef = await Test.createTestingModule({
      imports: [MemoryFormationModule],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
    rmSync('./data/formation.sqlite', { force: true });
  });

  it('forms a person’s memories from a turn over its routes, superseding what changed', async () => {
    const say = (message: string) =>
      request(app.getHttpServer())
        .post('/people/ada/conversations/c1')
        .send({ message })
        .expect(201);
    /** The person's memories once `done` says they are formed (polled, at most 5 s). */
    const formed = async (done: (texts: string[]) => boolean) => {
      let texts: string[] = [];
      for (let i = 0; i < 200 && !done(texts); i += 1) {
        if (i > 0) await sleep(25);
        const answer = await request(app.getHttpServer()).get('/people/ada/facts').expect(200);
        texts = (answer.body as Array<{ text: string }>).map((m) => m.text).sort();
      }
      return texts;
    };
    expect((await say('I live in Lyon. I like tea.')).body.reply).toEqual(expect.any(String));
    expect(await formed((t) => t.length === 2)).toEqual([
      'The user likes tea',
      'The user lives in Lyon',
    ]);
    await say('I moved to Nantes.');
    expect(await formed((t) => t.includes('The user lives in Nantes'))).toEqual([
      'The user likes tea',
      'The user lives in Nantes',
    ]);
  });
});
