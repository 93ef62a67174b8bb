import { describe, expect, it } from '@jest/globals';
import type {
  CallHandler,
  ExecutionContext,
  INestApplication,
  NestInterceptor,
} from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { type Observable, map } from 'rxjs';
import request from 'supertest';
import { AgentModule, ChatMemoryModule } from 'nest-agent-memory';
import { AgentMemoryHttpModule } from 'nest-agent-memory/http';

/**
 * The messages route inside an app's own customizations, on both platforms: a global interceptor
 * that wraps every answer (as Nest's docs show one), and Express's `json spaces`. The route's answer
 * must stay the plain object every serializer and interceptor expects (a spliced JSON-text answer
 * was tried and dropped for this; see docs/benchmarks.md).
 */

/** An app's own global interceptor that wraps every answer, as Nest's docs show one. */
class WrapInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}

/** The module on `platform`, the app's own setup applied before it starts. */
async function bootOn(
  platform: 'fastify' | 'express',
  setup: (app: INestApplication) => void,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      AgentModule.forRoot({ llm: { provider: 'echo' } }),
      AgentMemoryHttpModule.forRoot(),
    ],
  }).compile();
  const app =
    platform === 'fastify'
      ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  setup(app);
  await app.init();
  if (platform === 'fastify') await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe.each(['fastify', 'express'] as const)(
  "the messages route on %s, with and without an app's wrapping interceptor",
  (platform) => {
    it('answers the page as JSON, and wrapped as the object it is', async () => {
      for (const wrap of [false, true]) {
        const app = await bootOn(platform, (created) => {
          if (wrap) created.useGlobalInterceptors(new WrapInterceptor());
        });
        try {
          const server = app.getHttpServer();
          await request(server).post('/conversations/w1/turns').send({ message: 'hi' }).expect(201);
          const response = await request(server).get('/conversations/w1/messages?last=1');
          expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
          const page = wrap ? response.body.data : response.body;
          expect(page).toEqual({
            conversationId: 'w1',
            version: 2,
            messages: [expect.objectContaining({ role: 'assistant' })],
            before: 2,
          });
          // Other routes keep the app's interceptor as they always did.
          const runs = await request(server).get('/conversations/w1/runs').expect(200);
          expect(wrap ? runs.body.data.runs : runs.body.runs).toHaveLength(1);
        } finally {
          await app.close();
        }
      }
    });
  },
);

describe('the messages route on Express with json spaces set', () => {
  it("keeps the app's res.json settings (pretty-printed)", async () => {
    const app = await bootOn('express', (created) =>
      (created as NestExpressApplication).set('json spaces', 2),
    );
    try {
      const server = app.getHttpServer();
      await request(server).post('/conversations/s1/turns').send({ message: 'hi' }).expect(201);
      const response = await request(server).get('/conversations/s1/messages').expect(200);
      expect(response.text).toBe(JSON.stringify(response.body, null, 2));
      expect(response.body.messages).toHaveLength(2);
    } finally {
      await app.close();
    }
  });
});
