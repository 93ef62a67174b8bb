import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';

/** A request with the Host header of our choosing (what a DNS-rebinding page's browser sends). */
function withHost(
  app: RunningApp,
  method: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, headers: { host, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const ATTACKER = 'rebind.attacker.example';

describe('DNS rebinding: the open demo serves loopback names only', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await bootApp(embeddedEnv());
  });
  afterAll(() => app.close());

  it('answers 421 to a Host that is not loopback, on the API, the page and the docs', async () => {
    for (const [method, path] of [
      ['GET', '/conversations'],
      ['DELETE', '/conversations/victim'],
      ['GET', '/'],
      ['GET', '/docs-json'],
    ] as const) {
      const answer = await withHost(app, method, path, `${ATTACKER}:${new URL(app.url).port}`);
      expect([method, path, answer.status]).toEqual([method, path, 421]);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(answer.body)).toMatchObject({
        statusCode: 421,
        message:
          'This Host is not served here: add it to ALLOWED_HOSTS (the API is open without API_KEYS, so only loopback names are served by default)',
      });
    }
  });

  it('serves loopback names, and /health to any Host', async () => {
    const port = new URL(app.url).port;
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `LOCALHOST:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
    ])
      expect([host, (await withHost(app, 'GET', '/conversations', host)).status]).toEqual([
        host,
        200,
      ]);
    expect((await withHost(app, 'GET', '/health', ATTACKER)).status).toBe(200);
  });
});

describe('ALLOWED_HOSTS for real deployments', () => {
  let keyed: RunningApp;
  let listed: RunningApp;
  const KEY = { authorization: 'Bearer key-of-tenant-a-0001' };
  beforeAll(async () => {
    keyed = await bootApp({ ...embeddedEnv(), API_KEYS: 'a:key-of-tenant-a-0001' });
    listed = await bootApp({
      ...embeddedEnv(),
      API_KEYS: 'a:key-of-tenant-a-0001',
      ALLOWED_HOSTS: 'memory.example.com, api.example.com',
    });
  });
  afterAll(() => Promise.all([keyed.close(), listed.close()]));

  it('serves any Host with API keys and no list (the keys are the defence)', async () => {
    expect((await withHost(keyed, 'GET', '/conversations', ATTACKER, KEY)).status).toBe(200);
  });

  it('serves only the listed names and loopback when ALLOWED_HOSTS is set', async () => {
    expect(
      (await withHost(listed, 'GET', '/conversations', 'memory.example.com', KEY)).status,
    ).toBe(200);
    expect(
      (await withHost(listed, 'GET', '/conversations', 'API.example.com:443', KEY)).status,
    ).toBe(200);
    const refused = await withHost(listed, 'GET', '/conversations', ATTACKER, KEY);
    expect(refused.status).toBe(421);
    // The API is not open here: the refusal says only what to do.
    expect(JSON.parse(refused.body).message).toBe(
      'This Host is not served here: add it to ALLOWED_HOSTS',
    );
    expect((await withHost(listed, 'GET', '/conversations', 'localhost', KEY)).status).toBe(200);
    // A deployment with its own names gets HSTS.
    const named = await withHost(listed, 'GET', '/conversations', 'memory.example.com', KEY);
    expect(named.headers['strict-transport-security']).toMatch(/max-age=/);
  });

  it('refuses a malformed ALLOWED_HOSTS at startup, naming it', async () => {
    await expect(
      bootApp({ ...embeddedEnv(), ALLOWED_HOSTS: 'https://memory.example.com' }),
    ).rejects.toThrow(/ALLOWED_HOSTS/);
  });
});
