import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { type RunningApp, bootApp } from '../support/app-harness.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const KEY = 'key-of-tenant-kp-0001';
const AUTH = { Authorization: `Bearer ${KEY}` };

/**
 * The example app on Redis (history, runs, long-term and working memory, streams, rate limits)
 * under its own REDIS_KEY_PREFIX: every key it writes starts with it, so two deployments can share
 * one Redis database.
 */
describe('REDIS_KEY_PREFIX: every Redis key the app writes starts with it', () => {
  const prefix = `kp-${randomUUID().slice(0, 8)}:`;
  const conversation = `kpc-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(TEST_REDIS_URL);
  let app: RunningApp;

  beforeAll(async () => {
    app = await bootApp({
      CHAT_MEMORY_BACKEND: 'redis',
      REDIS_URL: TEST_REDIS_URL,
      LONGTERM_MEMORY_URI: TEST_REDIS_URL,
      AGENT_QUEUE: 'inline',
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

  it('keeps history, runs, the directory, memories, rate limits and sign-in failures under it', async () => {
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

    const kinds = new Set(
      (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length).split(':')[0]),
    );
    for (const kind of [
      'chat',
      'runs',
      'conversations',
      'longterm',
      'working',
      'throttle',
      'auth-failures',
    ])
      expect([kind, kinds.has(kind)]).toEqual([kind, true]);
    // Nothing of this conversation under the default prefix.
    expect(await redis.keys(`agent-memory:*${conversation}*`)).toEqual([]);
  }, 60_000);
});
