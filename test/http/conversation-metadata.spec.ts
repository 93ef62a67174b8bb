import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { AgentMemoryExceptionFilter, AgentModule, ChatMemoryModule } from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';

async function boot(queryParser: 'simple' | 'extended'): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      AgentModule.forRoot({ llm: { provider: 'echo' } }),
      AgentMemoryHttpModule.forRoot(),
    ],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
  app.set('query parser', queryParser);
  app.useGlobalFilters(new AgentMemoryExceptionFilter());
  await app.init();
  return app;
}

interface Listing {
  conversationId: string;
  lastActiveAt: number;
  title?: string;
  preview?: string;
  metadata?: Record<string, string>;
}

/** Titles, previews and metadata over HTTP, with either of Express's query parsers. */
describe.each(['simple', 'extended'] as const)(
  'conversation titles and metadata (%s query parser)',
  (parser) => {
    let app: INestApplication;
    const http = () => request(app.getHttpServer());
    const turn = (id: string, message: unknown) =>
      http().post(`/conversations/${id}/turns`).send({ message }).expect(201);
    const list = async (query: string) =>
      (await http().get(`/conversations${query}`).expect(200)).body as {
        conversations: Listing[];
        cursor?: string;
      };

    beforeAll(async () => {
      app = await boot(parser);
    });
    afterAll(async () => {
      await app?.close();
    });
    /** Conversation ids and a metadata value of one test's own (tests run in any order). */
    const own = () => {
      const tag = randomUUID().slice(0, 8);
      return { c1: `${tag}-c1`, c2: `${tag}-c2`, c3: `${tag}-c3`, team: `team-${tag}` };
    };

    it('lists the first message as title and the newest as preview', async () => {
      const { c1, c2 } = own();
      await turn(c1, `Plan a trip   to Lisbon\nin May, ${'with many details '.repeat(8)}`);
      await turn(c2, [{ type: 'text', text: 'Second conversation' }]);
      await turn(c1, 'Follow-up question');
      const { conversations } = await list('');
      const first = conversations.find((each) => each.conversationId === c1)!;
      expect(first.title).toMatch(/^Plan a trip to Lisbon in May, with many details .*…$/);
      expect(Array.from(first.title!).length).toBeLessThanOrEqual(80);
      expect(first.preview).toBe('Follow-up question');
      expect(first).not.toHaveProperty('metadata');
      expect(conversations.find((each) => each.conversationId === c2)).toMatchObject({
        title: 'Second conversation',
        preview: 'Second conversation',
      });
    });

    it('PATCH renames, sets and deletes metadata, clears the title', async () => {
      const { c1, c3 } = own();
      await turn(c1, 'Plan a trip to Lisbon');
      await turn(c1, 'Follow-up question');
      await turn(c3, 'Third');
      const renamed = await http()
        .patch(`/conversations/${c1}`)
        .send({ title: ' Lisbon trip ', metadata: { team: 'a', tier: 'pro', gone: 'x' } })
        .expect(200);
      expect(renamed.body).toEqual({
        conversationId: c1,
        lastActiveAt: expect.any(Number),
        title: 'Lisbon trip',
        preview: 'Follow-up question',
        metadata: { team: 'a', tier: 'pro', gone: 'x' },
      });
      const merged = await http()
        .patch(`/conversations/${c1}`)
        .send({ metadata: { gone: null } })
        .expect(200);
      expect(merged.body.metadata).toEqual({ team: 'a', tier: 'pro' });
      await http()
        .patch(`/conversations/${c3}`)
        .send({ metadata: { team: 'b' } })
        .expect(200);
      const cleared = await http().patch(`/conversations/${c3}`).send({ title: null }).expect(200);
      expect(cleared.body).not.toHaveProperty('title');
      await turn(c3, 'Another turn');
      expect((await list('')).conversations.find((each) => each.conversationId === c3)).toEqual({
        conversationId: c3,
        lastActiveAt: expect.any(Number),
        preview: 'Another turn',
        metadata: { team: 'b' },
      });
    });

    it('filters by metadata[key]=value (every pair), paging with a cursor that keeps the filter', async () => {
      const { c1, c2, c3, team } = own();
      await turn(c2, 'Second conversation');
      await turn(c1, 'First conversation');
      await turn(c3, 'Third');
      await http()
        .patch(`/conversations/${c1}`)
        .send({ metadata: { team, tier: 'pro' } })
        .expect(200);
      await http().patch(`/conversations/${c2}`).send({ metadata: { team } }).expect(200);
      const first = await list(`?metadata[team]=${team}&limit=1`);
      expect(first.conversations.map((each) => each.conversationId)).toEqual([c1]);
      expect(first.cursor).toEqual(expect.any(String));
      const second = await list(`?metadata[team]=${team}&limit=1&cursor=${first.cursor}`);
      expect(second.conversations.map((each) => each.conversationId)).toEqual([c2]);
      expect(second.cursor).toBeUndefined();
      const both = await list(`?metadata%5Bteam%5D=${team}&metadata%5Btier%5D=pro`);
      expect(both.conversations.map((each) => each.conversationId)).toEqual([c1]);
      expect((await list(`?metadata[team]=${team.toUpperCase()}`)).conversations).toEqual([]);
      // A cursor only continues the list it came from.
      for (const query of [`?cursor=${first.cursor}`, `?metadata[team]=b&cursor=${first.cursor}`]) {
        const refused = await http().get(`/conversations${query}`).expect(400);
        expect(refused.body.message).toContain('cursor');
      }
      const plain = await list('?limit=1');
      await http().get(`/conversations?metadata[team]=${team}&cursor=${plain.cursor}`).expect(400);
    });

    it('answers 400 for a bad filter or body, naming what is wrong, and 404 for an unknown conversation', async () => {
      const bad: Array<[string, string]> = [
        ['?metadata=x', 'metadata'],
        ['?metadata[a]=1&metadata[a]=2', 'metadata[a]'],
        ['?metadata[bad key]=1', 'bad key'],
        [`?${Array.from({ length: 6 }, (_, i) => `metadata[k${i}]=v`).join('&')}`, '5'],
        ['?limit=0', 'limit'],
        ['?other=1', 'other'],
      ];
      for (const [query, named] of bad) {
        const response = await http().get(`/conversations${query}`);
        expect([query, response.status]).toEqual([query, 400]);
        expect(JSON.stringify(response.body.message)).toContain(named);
      }
      const bodies: Array<[object, string]> = [
        [{ title: 5 }, 'title'],
        [{ title: '   ' }, 'title'],
        [{ title: 'x'.repeat(201) }, 'title'],
        [{ nope: 1 }, 'nope'],
        [{ metadata: 'x' }, 'metadata'],
        [{ metadata: { 'bad key': 'x' } }, 'bad key'],
        [{ metadata: { long: 'v'.repeat(513) } }, 'long'],
        [{ metadata: { n: 1 } }, 'metadata value of'],
        [
          { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) },
          '16',
        ],
      ];
      const { c1 } = own();
      await turn(c1, 'A conversation to patch');
      for (const [body, named] of bodies) {
        const response = await http().patch(`/conversations/${c1}`).send(body);
        expect([body, response.status]).toEqual([body, 400]);
        expect(JSON.stringify(response.body.message)).toContain(named);
      }
      const missing = await http().patch('/conversations/never').send({ title: 'x' }).expect(404);
      expect(missing.body.message).toBe('Conversation not found');
      await http().patch('/conversations/bad%2Fid').send({ title: 'x' }).expect(400);
    });
  },
);
