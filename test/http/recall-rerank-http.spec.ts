import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
  type RerankingModel,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';

/** Scores a text 1 when it mentions tomatoes, else 0. */
const tomatoes: RerankingModel = {
  id: 'tomatoes',
  rerank: async (_query, documents) => documents.map((text) => (text.includes('tomato') ? 1 : 0)),
};

interface HitBody {
  key: string;
  score: number;
  rerank?: { rank: number; score: number };
}

describe('GET /entities/:id/recall with a reranking model', () => {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({
          uri: 'memory://',
          recall: { rerank: { model: tomatoes, depth: 5 } },
        }),
        AgentModule.forRoot({ llm: { provider: 'echo' } }),
        AgentMemoryHttpModule.forRoot(),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AgentMemoryExceptionFilter());
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers each scored hit with its rerank place, and pages past the depth in fused order', async () => {
    const server = app.getHttpServer();
    const notes = [
      'garden garden garden',
      'garden garden',
      'garden',
      'garden and tomatoes',
      'garden x y',
      'a garden, far off, seen once from a train window',
    ];
    for (const [i, note] of notes.entries())
      await request(server).put(`/entities/g1/memories/n${i}`).send({ value: note }).expect(200);
    const first = await request(server).get('/entities/g1/recall?q=garden&k=2').expect(200);
    const hits = first.body.hits as HitBody[];
    expect(hits[0]).toMatchObject({ key: 'n3', rerank: { rank: 1, score: 1 } });
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
    const keys = hits.map((hit) => hit.key);
    let cursor = first.body.cursor as string | undefined;
    while (cursor) {
      const page = await request(server)
        .get(`/entities/g1/recall?q=garden&k=2&cursor=${cursor}`)
        .expect(200);
      keys.push(...(page.body.hits as HitBody[]).map((hit) => hit.key));
      cursor = page.body.cursor as string | undefined;
    }
    expect([...keys].sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);
    // The sixth is past the depth: after the scored five, without a rerank place.
    expect(keys.at(-1)).toBe('n5');
  });
});
