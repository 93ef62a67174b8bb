import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Browser, chromium } from 'playwright-core';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';
import { fetchWhole } from '../support/fetch-whole.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Record<string, string> {
  return Object.fromEntries(
    (header ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.split(/\s+/);
        return [name!, values.join(' ')];
      }),
  );
}

/**
 * Browser-facing defences of the example app (helmet): a strict Content-Security-Policy on the
 * page, Swagger UI's own, `nosniff`, no referrer, no `X-Powered-By`, `Cache-Control: no-store` on
 * everything but the bundle; and the page and the docs render under them in Chromium with no
 * violation.
 */
describe('security headers', () => {
  let app: RunningApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await bootApp(embeddedEnv());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('gives the page a strict policy', async () => {
    const response = await fetchWhole(`${app.url}/`);
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp).toMatchObject({
      'default-src': "'self'",
      'script-src': "'self'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
      'object-src': "'none'",
    });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-powered-by')).toBeNull();
    // No HSTS on a local app (it would pin localhost to HTTPS for a year).
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });

  it('marks API answers nosniff and no-store, and caches only the bundle', async () => {
    for (const path of [
      '/conversations',
      '/conversations/c/messages',
      '/runs/unknown',
      '/health',
      '/metrics', // written on Node's response (a hijacked reply on Fastify)
    ]) {
      const response = await fetchWhole(`${app.url}${path}`);
      expect([path, response.headers.get('cache-control')]).toEqual([
        path,
        expect.stringContaining('no-store'),
      ]);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
    // The MCP endpoint writes its answer on Node's response itself (a hijacked reply on Fastify).
    const mcp = await fetchWhole(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'headers-test', version: '1' },
        },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.headers.get('x-content-type-options')).toBe('nosniff');
    expect(mcp.headers.get('cache-control')).toContain('no-store');
    const bundle = await fetchWhole(`${app.url}/assets/app.js`);
    expect(bundle.headers.get('cache-control')).toMatch(/max-age=3600/);
  });

  it('gives Swagger UI its own policy (inline styles, data: images, scripts from files only)', async () => {
    for (const path of ['/docs', '/docs-json', '/DOCS']) {
      const csp = directives(
        (await fetchWhole(`${app.url}${path}`)).headers.get('content-security-policy'),
      );
      expect([path, csp]).toMatchObject([
        path,
        {
          'script-src': "'self'",
          'style-src': "'self' 'unsafe-inline'",
          'frame-ancestors': "'none'",
        },
      ]);
    }
    // Nothing else under a name that merely starts like it.
    const other = directives(
      (await fetchWhole(`${app.url}/docsx`)).headers.get('content-security-policy'),
    );
    expect(other['style-src']).toBe("'self'");
  });

  it('renders the page and the docs in Chromium without a policy violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text()))
        violations.push(message.text());
    });
    await page.goto(app.url);
    await page.getByTestId('composer').waitFor();
    await page.goto(`${app.url}/docs`);
    await page.locator('.swagger-ui .info').waitFor();
    await page.close();
    expect(violations).toEqual([]);
  }, 30_000);
});
