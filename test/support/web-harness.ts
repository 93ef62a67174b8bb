/// <reference lib="dom" />
// The specs run code in the page (page.evaluate), which uses its DOM types.
import { afterAll, beforeAll } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type RunningApp, appPerSuite, embeddedEnv } from './app-harness.js';
import { FakeLlmServer } from './fake-llm-server.js';

/** Where the page's screenshots go (test artefacts; the README shows copies in docs/images/). */
export const SHOTS = fileURLToPath(new URL('../../test-artifacts/web/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The two widths every layout test runs at: a laptop, and a phone. */
export const VIEWPORTS = [
  { name: 'wide', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** Keys of the suite's app, one tenant each. */
export const KEYS = ['a', 'b', 'c', 'd', 'e', 'f'].map((t) => `key-of-tenant-${t}-0001`);

/** What a web spec works with: the app, its fake model, and a fresh browser page per call. */
export interface WebSuite {
  app(): RunningApp;
  llm: FakeLlmServer;
  /** A new page (own context, clipboard permissions) at a viewport. */
  open(viewport?: { width: number; height: number }): Promise<Page>;
}

/**
 * Boots the built example app (embedded default, API keys for six tenants, the fake OpenAI server
 * as its model) and Chromium for the enclosing `describe`; each `open` gets a fresh context.
 */
export function webSuite(env: Record<string, string> = {}): WebSuite {
  const llm = new FakeLlmServer();
  let llmUrl = '';
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const app = appPerSuite(
    () => ({
      ...embeddedEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
      API_KEYS: KEYS.map((key, i) => `tenant${'ABCDEF'[i]}:${key}`).join(','),
      ...env,
    }),
    {
      beforeAll: (fn) =>
        beforeAll(async () => {
          llmUrl = await llm.start();
          mkdirSync(SHOTS, { recursive: true });
          browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
          await fn();
        }, 60_000),
      afterAll: (fn) =>
        afterAll(async () => {
          await browser?.close();
          await llm.stop();
          await fn();
        }),
    },
  );
  return {
    app,
    llm,
    open: async (viewport = VIEWPORTS[0]) => {
      const context = await browser!.newContext({
        viewport: { width: viewport.width, height: viewport.height },
      });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: app().url,
      });
      contexts.push(context);
      return context.newPage();
    },
  };
}

/** The button choosing conversation `id` in the list (its name is the title, not the id). */
export function conversationButton(page: Page, id: string) {
  return page.locator(`li[data-conversation-id="${id}"] button.choose`);
}

/** Saves a screenshot of the page's viewport as `test-artifacts/web/<name>.png`. */
export function shot(page: Page, name: string, fullPage = false): Promise<Buffer> {
  return page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

/** Goes to `path` of the app and makes the page use `key`. */
export async function openWithKey(page: Page, url: string, key: string, path = '/') {
  await page.goto(`${url}${path}`);
  await page
    .getByTestId('api-key')
    .or(page.getByRole('button', { name: /^Key/ }))
    .first()
    .waitFor();
  // On a narrow page the field folds behind "Key"; the page's first requests, refused for want of
  // a key, open it by themselves meanwhile: only a closed toggle is clicked, until the field shows.
  const field = page.getByTestId('api-key');
  const toggle = page.getByRole('button', { name: /^Key/ });
  for (let tries = 0; tries < 5 && !(await field.isVisible()); tries += 1) {
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await field.waitFor({ state: 'visible', timeout: 1_000 }).catch(() => undefined);
  }
  await field.fill(key);
  await page.getByTestId('save-key').click();
}

/** Calls the app's API as `key`; resolves with the parsed body (or null) and the status. */
export async function api<T = unknown>(
  url: string,
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${key}`,
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Runs `count` turns in `conversation` through the API (the fake model answers each). */
export async function seedTurns(
  url: string,
  key: string,
  conversation: string,
  count: number,
  text: (i: number) => string = (i) => `question ${i}`,
): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const { status } = await api(url, key, `/conversations/${conversation}/turns`, {
      method: 'POST',
      body: { message: text(i) },
    });
    if (status !== 201) throw new Error(`seeding ${conversation}: ${status}`);
  }
}

/** Whether the page's window scrolls (it must not on the chat page), and the list's overflow. */
export function layoutOf(page: Page) {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    const composer = document.querySelector('[data-testid="composer"]')!.getBoundingClientRect();
    return {
      windowScrolls: root.scrollHeight > root.clientHeight + 1,
      windowScrollsSideways: root.scrollWidth > root.clientWidth + 1,
      composerVisible: composer.top >= 0 && composer.bottom <= window.innerHeight,
    };
  });
}
