import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';
import { deleteRedisKeys } from '../support/redis-cleanup.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

/** Three tenants of one app: one per budget under test. */
const tenants = () => {
  const id = randomUUID().slice(0, 8);
  return { a: `key-a-${id}-0000000`, b: `key-b-${id}-0000000`, c: `key-c-${id}-0000000` };
};

/**
 * A client address of this suite's own (10.x.y.z): the failed-authentication counters live in the
 * shared Redis under the address, so a file running at the same time (this suite on the other HTTP
 * platform) never counts the same address.
 */
const ownAddress = () => `10.${[1, 2, 3].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

const layouts: Array<[string, () => Record<string, string>]> = [
  ['process memory (embedded default)', () => embeddedEnv()],
  [
    'Redis counters',
    () => ({
      ...embeddedEnv(),
      REDIS_URL: TEST_REDIS_URL,
      AGENT_QUEUE: 'inline',
      QUEUE_PREFIX: `rl-${randomUUID().slice(0, 8)}`,
    }),
  ],
];

/**
 * The example app's limits hold as configured: `RATE_LIMIT_MAX` per tenant across every route (not
 * per route), `RATE_LIMIT_TURNS_MAX` on the routes that call the model, and `AUTH_FAILURES_MAX`
 * failed authentications per client address, after which the address is refused whatever key it
 * sends — on the API and on the routes Express serves itself (`/docs-json`).
 */
describe.each(layouts)('rate limits (%s)', (_name, env) => {
  const keys = tenants();
  const guesserAddress = ownAddress();
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  let app: RunningApp;
  beforeAll(async () => {
    app = await bootApp({
      ...env(),
      API_DOCS: 'key',
      API_KEYS: `ta-${keys.a.slice(6, 14)}:${keys.a},tb-${keys.b.slice(6, 14)}:${keys.b},tc-${keys.c.slice(6, 14)}:${keys.c}`,
      RATE_LIMIT_MAX: '6',
      RATE_LIMIT_TTL_MS: '60000',
      RATE_LIMIT_TURNS_MAX: '2',
      AUTH_FAILURES_MAX: '3',
      // The failed-authentication test blocks an address of its own (X-Forwarded-For), so the
      // other tests (from 127.0.0.1) hold in any order.
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(async () => {
    await app?.close();
    await deleteRedisKeys(redis, `agent-memory:auth-failures:${guesserAddress}`);
    await redis.quit();
  });

  const call = (key: string, path: string, init: RequestInit = {}) =>
    fetch(`${app.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
  const turn = (key: string, path: string) =>
    call(key, path, { method: 'POST', body: JSON.stringify({ message: 'hi' }) });

  it('counts a tenant’s requests across every route, not per route', async () => {
    const routes = ['/conversations', '/conversations/x/messages', '/conversations/x/runs'];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await call(keys.a, routes[i % 3]!)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const seventh = await call(keys.a, '/conversations/y/messages');
    expect(seventh.status).toBe(429);
    const retryAfter = Number(seventh.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    // In plain words: which budget, for whom, and when to come back.
    expect(await seventh.json()).toEqual({
      statusCode: 429,
      error: 'Too Many Requests',
      message: `Too many requests for this API key: the limit is 6 per 60 s. Try again in ${retryAfter} s (Retry-After).`,
    });
    // Another tenant has its own budget.
    expect((await call(keys.c, '/conversations')).status).toBe(200);
  });

  it('gives the routes that call the model a budget of their own', async () => {
    expect((await turn(keys.b, '/conversations/t/turns')).status).toBe(201);
    expect((await turn(keys.b, '/conversations/t/turns?async=true')).status).toBe(202);
    const third = await turn(keys.b, '/conversations/u/turns');
    expect(third.status).toBe(429);
    expect(((await third.json()) as { message: string }).message).toMatch(
      /^Too many turns \(model calls\) for this API key: the limit is 2 per 60 s\./,
    );
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(keys.b, '/conversations/t/messages')).status).toBe(200); // reads go on
  });

  it('refuses an address after too many failed authentications, whatever key it then sends', async () => {
    const guesser = { headers: { 'x-forwarded-for': guesserAddress } };
    for (let i = 0; i < 3; i += 1)
      expect((await call(`wrong-key-${i}-000000000`, '/conversations', guesser)).status).toBe(401);
    const blocked = await call(keys.c, '/conversations', guesser);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.json()).toMatchObject({
      statusCode: 429,
      message: expect.stringContaining('failed authentications'),
    });
    expect((await call(keys.c, '/docs-json', guesser)).status).toBe(429);
    // Other addresses are not blocked by these guesses.
    expect((await call(keys.c, '/docs-json')).status).toBe(200);
  });

  it('API_DOCS=key: every docs route needs a key, whatever form the path takes', async () => {
    for (const path of ['/docs', '/docs/', '/docs-json', '/docs-yaml', '/docs/swagger-ui.css']) {
      const response = await fetch(`${app.url}${path}`);
      await response.arrayBuffer();
      expect([path, response.status]).toEqual([path, 401]);
    }
    const head = await fetch(`${app.url}/docs-json`, { method: 'HEAD' });
    expect(head.status).toBe(401);
    // No key says so, as the API's routes do; a wrong one is an invalid key.
    const none = await fetch(`${app.url}/docs-json`);
    expect(((await none.json()) as { message: string }).message).toBe(
      'Missing bearer token (Authorization: Bearer <key>)',
    );
  });
});

describe('failed authentications: the routes Express serves, missing keys, proxies', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await bootApp({
      ...embeddedEnv(),
      API_DOCS: 'key',
      API_KEYS: 'acme:key-of-acme-00000001',
      ADMIN_API_KEY: 'admin-key-0123456789',
      AUTH_FAILURES_MAX: '2',
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(() => app?.close());

  /** A request as the proxy in front reports it, from `client`. */
  const from = (client: string, path: string, key?: string) =>
    fetch(`${app.url}${path}`, {
      headers: {
        'x-forwarded-for': client,
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      },
    });

  it('counts them on /docs-json and /metrics too, per client address behind a trusted proxy', async () => {
    expect((await from('10.0.0.1', '/docs-json', 'key-of-acme-00000001')).status).toBe(200);
    expect((await from('10.0.0.1', '/docs-json', 'wrong-0000000000001')).status).toBe(401);
    expect((await from('10.0.0.1', '/metrics', 'wrong-0000000000002')).status).toBe(401);
    const blocked = await from('10.0.0.1', '/docs-json', 'key-of-acme-00000001');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await from('10.0.0.1', '/conversations', 'key-of-acme-00000001')).status).toBe(429);
    // Another client behind the same proxy is not blocked by the first one's guesses.
    expect((await from('10.0.0.2', '/conversations', 'key-of-acme-00000001')).status).toBe(200);
    expect((await from('10.0.0.2', '/metrics', 'admin-key-0123456789')).status).toBe(200);
  });

  it('does not count requests without a key (a page before its key is typed)', async () => {
    for (let i = 0; i < 5; i += 1)
      expect((await from('10.0.0.3', '/conversations')).status).toBe(401);
    expect((await from('10.0.0.3', '/conversations', 'key-of-acme-00000001')).status).toBe(200);
  });
});
