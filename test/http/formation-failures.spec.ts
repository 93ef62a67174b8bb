import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';
import { SwitchableModel } from '../support/switchable-formation-model.js';

interface Failure {
  jobId: string;
  runId: string;
  error: string;
  attempts: number;
}

describe('failed formation jobs over HTTP: listed a page at a time, and run again', () => {
  const model = new SwitchableModel();
  let app: INestApplication;
  const runIds: string[] = [];
  let rerunId: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false }),
        AgentModule.forRoot({ llm: { provider: 'echo' }, formation: { model, attempts: 1 } }),
        AgentMemoryHttpModule.forRoot(),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AgentMemoryExceptionFilter());
    await app.init();
    for (const message of ['I like tea.', 'I like chess.', 'I live in Oslo.']) {
      const turn = await request(app.getHttpServer())
        .post('/conversations/ff1/turns')
        .send({ message, entityId: 'u1' })
        .expect(201);
      runIds.push(turn.body.runId as string);
    }
    // The re-run test's own entity: tests run in any order, and a re-run changes what it lists.
    const turn = await request(app.getHttpServer())
      .post('/conversations/ff2/turns')
      .send({ message: 'I like tea.', entityId: 'u3' })
      .expect(201);
    rerunId = turn.body.runId as string;
    // Each turn's job fails in the background (one attempt each).
    for (let i = 0; i < 200; i += 1) {
      if ((await failures()).length === 3 && (await failures('', 'u3')).length === 1) break;
      await sleep(50);
    }
  });
  afterAll(() => app?.close());

  async function failures(query = '', entity = 'u1'): Promise<Failure[]> {
    return (
      await request(app.getHttpServer())
        .get(`/entities/${entity}/formation-failures${query}`)
        .expect(200)
    ).body.failures as Failure[];
  }

  it('lists the failures a page at a time, in job id order, without the turn they read', async () => {
    const first = await request(app.getHttpServer())
      .get('/entities/u1/formation-failures?limit=2')
      .expect(200);
    expect(first.body.failures).toHaveLength(2);
    expect(first.body.cursor).toBe(first.body.failures[1].jobId);
    const second = await request(app.getHttpServer())
      .get(
        `/entities/u1/formation-failures?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`,
      )
      .expect(200);
    expect(second.body.cursor).toBeUndefined();
    const all = [...first.body.failures, ...second.body.failures] as Failure[];
    expect(all.map((failure) => failure.runId).sort()).toEqual([...runIds].sort());
    expect(all.map((failure) => failure.jobId)).toEqual(all.map((f) => f.jobId).sort());
    for (const failure of all) {
      expect(Object.keys(failure).sort()).toEqual(
        ['at', 'attempts', 'conversationId', 'error', 'jobId', 'runId'].sort(),
      );
      expect(failure.error).toContain('not JSON');
    }
    await request(app.getHttpServer())
      .get('/entities/u1/formation-failures?cursor=not-a-job')
      .expect(400);
    await request(app.getHttpServer()).get('/entities/u1/formation-failures?limit=0').expect(400);
  });

  it('runs a failed job again: failed, it is kept with one attempt more; written, it is gone', async () => {
    const tea = rerunId;
    const server = app.getHttpServer();
    const again = await request(server)
      .post(`/entities/u3/formation-failures/${tea}/rerun`)
      .expect(200);
    expect(again.body).toEqual({
      status: 'failed',
      error: expect.stringContaining('not JSON'),
    });
    expect((await failures('', 'u3')).find((failure) => failure.runId === tea)!.attempts).toBe(2);

    model.failing = false;
    const written = await request(server)
      .post(`/entities/u3/formation-failures/${tea}/rerun`)
      .expect(200);
    expect(written.body).toEqual({
      status: 'written',
      operations: [{ candidate: 0, op: 'ADD', memoryId: expect.any(String) }],
    });
    const memories = await request(server).get('/entities/u3/formed-memories').expect(200);
    expect(memories.body.memories.map((memory: { text: string }) => memory.text)).toEqual([
      'The user likes tea',
    ]);
    expect(await failures('', 'u3')).toEqual([]);

    // Nothing left to run: the same run, another entity's, an id that is not a run id.
    await request(server).post(`/entities/u3/formation-failures/${tea}/rerun`).expect(404);
    await request(server).post(`/entities/u2/formation-failures/${runIds[1]}/rerun`).expect(404);
    await request(server).post('/entities/u3/formation-failures/a%20b/rerun').expect(404);
  });
});
