import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  AgentMemoryExceptionFilter,
  AgentModule,
  ChatMemoryModule,
  LongtermMemoryModule,
} from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';

/** An app serving the HTTP module over in-memory stores, with this long-term tier (or none). */
function appWith(longterm: DynamicModule[]): () => INestApplication {
  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        ...longterm,
        AgentModule.forRoot({ llm: { provider: 'echo' } }),
        AgentMemoryHttpModule.forRoot(),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AgentMemoryExceptionFilter());
    await app.init();
  });
  afterAll(() => app?.close());
  return () => app;
}

/**
 * Searching formed memories (`q`) on a long-term tier with neither list to search by — text search
 * off and no embedder (a setup formation itself refuses at start, so only an app without
 * formation has it): 503 saying so, not a 400 about a `mode` the route does not take.
 */
describe('formed-memories?q= with text search off and no embedder', () => {
  const app = appWith([
    LongtermMemoryModule.forRoot({ uri: 'memory://', sweep: false, textSearch: false }),
  ]);

  it('answers 503 naming what is off; the plain list still answers', async () => {
    const answer = await request(app().getHttpServer())
      .get('/entities/u1/formed-memories?q=Lyon')
      .expect(503);
    expect(answer.body.message).toBe(
      'Searching formed memories needs text search or an embedder on the long-term tier, and neither is on',
    );
    await request(app().getHttpServer())
      .get('/entities/u1/formed-memories')
      .expect(200, { memories: [] });
  });
});

describe('formed-memories?q= with the long-term tier off', () => {
  const app = appWith([]);

  it('answers a bad entity id 400 before the tier 503, as the list does', async () => {
    const tooLong = encodeURIComponent('é'.repeat(128));
    for (const query of ['?q=Lyon', '']) {
      const bad = await request(app().getHttpServer())
        .get(`/entities/${tooLong}/formed-memories${query}`)
        .expect(400);
      expect(JSON.stringify(bad.body.message)).toContain('entityId');
      await request(app().getHttpServer()).get(`/entities/u1/formed-memories${query}`).expect(503);
    }
  });
});
