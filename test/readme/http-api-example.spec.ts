import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { HttpApiModule } from '../../examples/http-api.module.js';

describe('README example: HttpApiModule (the HTTP API under /api, tenants from a header)', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [HttpApiModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('runs turns under /api, one history per tenant', async () => {
    const server = app.getHttpServer();
    const turn = await request(server)
      .post('/api/conversations/c1/turns')
      .set('x-tenant', 'acme')
      .send({ message: 'hello' })
      .expect(201);
    expect(turn.body.reply.content).toContain('hello');
    const own = await request(server).get('/api/conversations/c1/messages').set('x-tenant', 'acme');
    const other = await request(server)
      .get('/api/conversations/c1/messages')
      .set('x-tenant', 'zed');
    expect([own.body.version, other.body.version]).toEqual([2, 0]);
  });

  it('answers an x-tenant header that is no tenant id with a 400 naming it, not a 500', async () => {
    for (const tenant of ['a b', '../etc', 'x'.repeat(51)]) {
      const response = await request(app.getHttpServer())
        .get('/api/conversations/c1/messages')
        .set('x-tenant', tenant)
        .expect(400);
      expect(response.body.message).toBe(
        'x-tenant must be 1–50 characters of letters, digits and _ - . : @',
      );
    }
  });

  it('maps malformed JSON to the same error body (the global filter)', async () => {
    const response = await request(app.getHttpServer())
      .post('/api/conversations/c1/turns')
      .set('content-type', 'application/json')
      .send('{"message": ')
      .expect(400);
    expect(response.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.any(String),
    });
  });
});
