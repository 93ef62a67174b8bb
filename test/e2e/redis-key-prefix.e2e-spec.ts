import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const KEY = 'key-of-tenant-kp-0001';
const AUTH = { Authorization: `Bearer ${KEY}` };

/** A Redis logical database of this suite's own, so every key in it is the app's. */
const REDIS_URL = Object.assign(new URL(TEST_REDIS_URL), { pathname: '/11' }).href;

/**
 * The example app on Redis (history, runs, long-term and working memory, the Bull queue, chat
 * streams, rate limits) under its own REDIS_KEY_PREFIX: every key it writes starts with it, so two
 * deployments can share one Redis database.
 */
describe('REDIS_KEY_PREFIX: every Redis key the app writes starts with it', () => {
  const prefix = `kp-${randomUUID().slice(0, 8)}:`;
  const conversation = `kpc-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(REDIS_URL);
  let app: RunningApp;

  beforeAll(async () => {
    app = await bootApp({
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL,
      LONGTERM_MEMORY_URI: REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      API_KEYS: `kp:${KEY}`,
      AUTH_FAILURES_MAX: '5',
      RATE_LIMIT_MAX: '1000',
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('keeps history, runs, the directory, memories, the queue, streams, rate limits and sign-in failures under it', async () => {
    const http = () => request(app.url);
    await http()
      .post(`/conversations/${conversation}/turns`)
      .set(AUTH)
      .send({ message: 'My name is Ada.', entityId: 'ada' })
      .expect(201);
    await http()
      .put(`/conversations/${conversation}/working-memory/goal`)
      .set(AUTH)
      .send({ value: 'tea' })
      .expect(204);
    await http().put('/entities/ada/memories/city').set(AUTH).send({ value: 'Lyon' }).expect(200);
    await http().get('/conversations').set({ Authorization: 'Bearer wrong-key-000000000' });
    // A queued turn (Bull), and a streamed one through the chat route (its stream kept in Redis).
    const queued = await http()
      .post(`/conversations/${conversation}-q/turns?async=true`)
      .set(AUTH)
      .send({ message: 'Later.' })
      .expect(202);
    for (let i = 0; i < 200; i += 1) {
      const run = await http().get(`/runs/${queued.body.runId}`).set(AUTH);
      if (run.body.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await http()
      .post(`/conversations/${conversation}/chat`)
      .set(AUTH)
      .send({
        message: { id: `ui-${conversation}`, role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      })
      .expect(200);

    // Every key in this database is the app's, and starts with the prefix (the queue's too).
    const keys = await redis.keys('*');
    expect(keys.filter((key) => !key.startsWith(prefix))).toEqual([]);
    const kinds = new Set(keys.map((key) => key.slice(prefix.length).split(':')[0]));
    for (const kind of [
      'chat',
      'runs',
      'conversations',
      'longterm',
      'working',
      'throttle',
      'auth-failures',
      'bull',
      'chat-streams',
    ])
      expect([kind, kinds.has(kind)]).toEqual([kind, true]);
  }, 60_000);
});
