import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
  WorkingMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';
import { tempDir } from '../support/test-databases.js';

async function boot(http: ReturnType<typeof AgentMemoryHttpModule.forRoot>) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://' }),
      WorkingMemoryModule.forRoot({ backend: 'memory', capBytes: 4096 }),
      AgentModule.forRoot({ llm: { provider: 'echo' } }),
      http,
    ],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  app.useGlobalFilters(new AgentMemoryExceptionFilter());
  await app.init();
  return app;
}

/** The module with `forRoot()`'s defaults; the README example covers a prefix and tenants. */
describe('AgentMemoryHttpModule in a plain Nest app (in process)', () => {
  let bare: INestApplication;

  beforeAll(async () => {
    bare = await boot(AgentMemoryHttpModule.forRoot());
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('names the type first in validation errors, and seq as required on DELETE', async () => {
    const server = bare.getHttpServer();
    const last = await request(server).get('/conversations/c1/messages?last=abc').expect(400);
    expect(last.body.message).toBe('last must be an integer number');
    const missing = await request(server).delete('/entities/u1/memories/k').expect(400);
    expect(missing.body.message).toContain('seq is required');
    const text = await request(server).put('/entities/u1/memories/k').send({ value: 1, seq: '5' });
    expect(text.body.message).toBe('seq must be an integer');
  });

  it('pages from the end when before is past it; limit alone is last', async () => {
    const server = bare.getHttpServer();
    for (const message of ['one', 'two'])
      await request(server).post('/conversations/p1/turns').send({ message }).expect(201);
    const past = await request(server).get('/conversations/p1/messages?before=99&limit=3');
    expect(past.body).toMatchObject({ version: 4, before: 2 });
    expect(past.body.messages.map((m: { content: string }) => m.content)[1]).toBe('two');
    const limited = await request(server).get('/conversations/p1/messages?limit=1');
    expect(limited.body.messages).toHaveLength(1);
    expect(limited.body.before).toBe(4);
  });

  it('says the Idempotency-Key was used elsewhere (409), and clears working memory on delete', async () => {
    const server = bare.getHttpServer();
    const post = (c: string) =>
      request(server)
        .post(`/conversations/${c}/turns`)
        .set('Idempotency-Key', 'same-key')
        .send({ message: 'hi' });
    await post('k1').expect(201);
    const conflict = await post('k2').expect(409);
    expect(conflict.body.message).toContain('Idempotency-Key');

    await request(server).put('/conversations/k1/working-memory/n').send({ value: 7 }).expect(204);
    const entry = await request(server).get('/conversations/k1/working-memory/n').expect(200);
    expect(entry.body).toEqual({ key: 'n', value: 7, sizeBytes: 2 });
    await request(server).get('/conversations/k1/working-memory/missing').expect(404);
    const big = await request(server)
      .put('/conversations/k1/working-memory/big')
      .send({ value: 'x'.repeat(5000) })
      .expect(413);
    expect(big.body.message).toContain('big');
    await request(server).delete('/conversations/k1').expect(204);
    const after = await request(server).get('/conversations/k1/working-memory').expect(200);
    expect(after.body.entries).toEqual([]);
  });

  it("pages a conversation's runs newest first with a cursor", async () => {
    const server = bare.getHttpServer();
    const ids: string[] = [];
    for (const message of ['a', 'b', 'c']) {
      const turn = await request(server).post('/conversations/r1/turns').send({ message });
      ids.push(turn.body.runId);
    }
    const first = await request(server).get('/conversations/r1/runs?limit=2').expect(200);
    expect(first.body.runs.map((r: { runId: string }) => r.runId)).toEqual([ids[2], ids[1]]);
    expect(first.body.runs[0]).toMatchObject({ conversationId: 'r1', status: 'completed' });
    const second = await request(server)
      .get(`/conversations/r1/runs?limit=2&cursor=${first.body.cursor}`)
      .expect(200);
    expect(second.body.runs.map((r: { runId: string }) => r.runId)).toEqual([ids[0]]);
    expect(second.body.cursor).toBeUndefined();
    await request(server).get('/conversations/r1/runs?cursor=bogus').expect(400);
  });

  it('refuses extras of the wrong type when the module is built', () => {
    expect(() => AgentMemoryHttpModule.forRoot({ tools: 'no' as never })).toThrow(/tools/);
    expect(() => AgentMemoryHttpModule.forRoot({ path: '' })).toThrow(/path/);
  });

  it.each([
    [{ backend: 'disk' }, /resumableStreams\.backend/],
    [{ backend: 'memory', url: 'redis://x' }, /resumableStreams\.url/],
    [{ backend: 'redis' }, /resumableStreams\.url.*required/],
    [{ backend: 'memory', keepMs: -1 }, /resumableStreams\.keepMs/],
    [{ backend: 'memory', maxBytes: 10 }, /resumableStreams\.maxBytes/],
  ])('refuses resumableStreams %j at bootstrap, naming the option', async (option, message) => {
    await expect(
      Test.createTestingModule({
        imports: [AgentMemoryHttpModule.forRoot({ resumableStreams: option as never })],
      }).compile(),
    ).rejects.toThrow(message);
  });
});

/** A tenant per `x-tenant` header, the conversations on SQLite (the agent's directory with them). */
describe("GET /conversations: a tenant's conversations, newest first", () => {
  let app: INestApplication;
  const tenantResolver = {
    resolve: (request: { headers: Record<string, string | string[] | undefined> }) =>
      request.headers['x-tenant'] as string | undefined,
  };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ uri: `sqlite:${join(tempDir(), 'list.sqlite')}` }),
        AgentModule.forRoot({ llm: { provider: 'echo' } }),
        AgentMemoryHttpModule.forRoot({ tenantResolver }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AgentMemoryExceptionFilter());
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  const turn = async (tenant: string, conversation: string) => {
    await request(app.getHttpServer())
      .post(`/conversations/${conversation}/turns`)
      .set('x-tenant', tenant)
      .send({ message: 'hi' })
      .expect(201);
    // Distinct milliseconds, so the expected order does not rest on the tie-break.
    await sleep(3);
  };
  const list = async (tenant: string | undefined, query = '') => {
    const get = request(app.getHttpServer()).get(`/conversations${query}`);
    const response = await (tenant ? get.set('x-tenant', tenant) : get).expect(200);
    return response.body as {
      conversations: Array<{ conversationId: string; lastActiveAt: number }>;
      cursor?: string;
    };
  };
  const ids = (page: { conversations: Array<{ conversationId: string }> }) =>
    page.conversations.map((c) => c.conversationId);

  it('pages newest activity first, per tenant, and forgets a deleted conversation', async () => {
    for (const conversation of ['c1', 'c2', 'c3']) await turn('acme', conversation);
    await turn('other', 'c1');
    await turn('acme', 'c1');

    const first = await list('acme', '?limit=2');
    expect(ids(first)).toEqual(['c1', 'c3']);
    expect(first.conversations[0]!.lastActiveAt).toBeGreaterThan(
      first.conversations[1]!.lastActiveAt,
    );
    const second = await list('acme', `?limit=2&cursor=${first.cursor}`);
    expect(ids(second)).toEqual(['c2']);
    expect(second.cursor).toBeUndefined();

    expect(ids(await list('other'))).toEqual(['c1']);
    expect(ids(await list(undefined))).toEqual([]);

    await request(app.getHttpServer())
      .delete('/conversations/c2')
      .set('x-tenant', 'acme')
      .expect(204);
    expect(ids(await list('acme'))).toEqual(['c1', 'c3']);
  });

  it("shows a run's steps to its own tenant only", async () => {
    const server = app.getHttpServer();
    const turn = await request(server)
      .post('/conversations/s1/turns')
      .set('x-tenant', 'acme-steps')
      .send({ message: 'hello' })
      .expect(201);
    const steps = await request(server)
      .get(`/runs/${turn.body.runId}/steps`)
      .set('x-tenant', 'acme-steps')
      .expect(200);
    expect(steps.body).toMatchObject({ runId: turn.body.runId, conversationId: 's1' });
    expect(steps.body.steps).toEqual([
      expect.objectContaining({
        type: 'model',
        round: 0,
        replayed: false,
        content: expect.stringContaining('hello'),
      }),
    ]);
    const run = await request(server).get(`/runs/${turn.body.runId}`).set('x-tenant', 'acme-steps');
    expect(run.body.attempts).toBe(1);
    await request(server)
      .get(`/runs/${turn.body.runId}/steps`)
      .set('x-tenant', 'other')
      .expect(404);
    await request(server).get(`/runs/${turn.body.runId}/steps`).expect(404);
    await request(server).get('/runs/no-such-run/steps').set('x-tenant', 'acme-steps').expect(404);
  });

  it('refuses a cursor or limit it did not give', async () => {
    const server = app.getHttpServer();
    await request(server).get('/conversations?cursor=bogus').expect(400);
    await request(server).get('/conversations?limit=0').expect(400);
    await request(server).get('/conversations?limit=101').expect(400);
    const huge = Buffer.from('99999999999999999:c').toString('base64url');
    await request(server).get(`/conversations?cursor=${huge}`).expect(400);
  });

  it('keeps a crafted cursor inside the tenant: it only places the page', async () => {
    // Tenants of its own: the test holds in any order.
    await turn('crafted-a', 'mine');
    await turn('crafted-b', 'only-other');
    // A cursor naming another tenant's id, far in the future: the page is still the tenant's own.
    const crafted = Buffer.from(`${Date.now() + 60_000}:../crafted-b/only-other`).toString(
      'base64url',
    );
    const page = await list('crafted-a', `?cursor=${crafted}`);
    expect(ids(page)).toEqual(['mine']);
    expect(ids(await list('crafted-b'))).toContain('only-other');
  });
});
