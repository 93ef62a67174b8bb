import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { openAiAnswer } from '../support/fake-llm-server.js';
import {
  KEYS,
  VIEWPORTS,
  layoutOf,
  openWithKey,
  seedTurns,
  shot,
  webSuite,
  conversationButton,
} from '../support/web-harness.js';

const KEY = KEYS[0]!;

/** The message list's scroll state, and whether its newest message is in view. */
const listState = (page: Page) =>
  page.getByTestId('messages').evaluate((list) => {
    const last = list.querySelector('.message:last-of-type')!.getBoundingClientRect();
    const box = list.getBoundingClientRect();
    return {
      atBottom: list.scrollTop + list.clientHeight >= list.scrollHeight - 2,
      scrolls: list.scrollHeight > list.clientHeight,
      newestInView: last.bottom <= box.bottom + 1 && last.bottom > box.top,
    };
  });

/** Opens the conversations drawer when the screen is narrow (the sidebar is always there when wide). */
async function showConversations(page: Page) {
  const menu = page.getByTestId('menu');
  if (await menu.isVisible()) await menu.click();
}

describe('the chat page layout (1280×800 and 390×844)', () => {
  const web = webSuite();

  beforeAll(async () => {
    web.llm.fallback = openAiAnswer('ok');
    // 25 conversations of one turn each, then one of 30 turns (60 messages), the newest.
    for (let i = 0; i < 25; i += 1)
      await seedTurns(web.app().url, KEY, `talk-${String(i).padStart(2, '0')}`, 1);
    await seedTurns(web.app().url, KEY, 'long-chat', 30, (i) => `message number ${i}`);
  }, 120_000);

  it.each(VIEWPORTS)(
    '$name: 25 conversations, the composer in view, only the message list scrolls, a 60-message chat opens at its newest',
    async (viewport) => {
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, KEY);
      // The favicon is an inline SVG (no request for /favicon.ico).
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(
        /^data:image\/svg\+xml,/,
      );
      await showConversations(page);
      const items = page.getByTestId('conversations').locator('li');
      await items.nth(20).waitFor(); // the new conversation, then the first page of 20
      await page.getByRole('button', { name: 'More', exact: true }).click();
      await items.nth(26).waitFor();
      // A title has the item's width (Rename and Delete show over it on hover, at 1280 px).
      const nameWidth = await items
        .nth(1)
        .locator('.name')
        .evaluate((name) => name.getBoundingClientRect().width);
      expect(nameWidth).toBeGreaterThanOrEqual(viewport.name === 'wide' ? 270 : 180);
      expect(await layoutOf(page)).toEqual({
        windowScrolls: false,
        windowScrollsSideways: false,
        composerVisible: true,
      });
      await conversationButton(page, 'long-chat').click();
      const messages = page.getByTestId('messages');
      await messages.getByText('message number 29', { exact: true }).waitFor();
      // The drawer closed on the choice, and the composer has the focus.
      await page.getByTestId('sidebar').waitFor({
        state: viewport.name === 'wide' ? 'visible' : 'hidden',
      });
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer');
      await page.waitForFunction(() => {
        const list = document.querySelector('[data-testid="messages"]')!;
        return list.scrollTop + list.clientHeight >= list.scrollHeight - 2;
      });
      expect(await listState(page)).toEqual({ atBottom: true, scrolls: true, newestInView: true });
      expect(await page.getByTestId('message-user').count()).toBe(30);
      expect(await layoutOf(page)).toEqual({
        windowScrolls: false,
        windowScrollsSideways: false,
        composerVisible: true,
      });
      // A reload opens at the newest message again.
      await page.reload();
      await messages.getByText('message number 29', { exact: true }).waitFor();
      await page.waitForFunction(() => {
        const list = document.querySelector('[data-testid="messages"]')!;
        return list.scrollHeight > list.clientHeight && list.scrollTop > 0;
      });
      expect(await listState(page)).toEqual({ atBottom: true, scrolls: true, newestInView: true });
      await shot(page, `layout-${viewport.name}-long-chat`);
    },
    60_000,
  );

  it('390: a refusal of a request sent before the key was saved leaves the key form shut and the focus in the open drawer', async () => {
    const page = await web.open(VIEWPORTS[1]);
    // The page's first conversation list goes without a key: its 401 is held until the key is
    // saved and the drawer is open (what a slow answer does on a busy machine).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/conversations?limit=*', async (route) => {
      if (!route.request().headers().authorization) await held;
      await route.continue();
    });
    await openWithKey(page, web.app().url, KEY);
    await page.getByRole('button', { name: 'Conversations' }).click();
    const inDrawer = () =>
      page.evaluate(() => document.querySelector('#sidebar')!.contains(document.activeElement));
    await page.waitForFunction(() =>
      document.querySelector('#sidebar')!.contains(document.activeElement),
    );
    const refused = page.waitForResponse(
      (response) => response.url().includes('/conversations?limit=') && response.status() === 401,
    );
    release();
    await refused;
    // Two frames for the page to handle it: the key form would open and take the focus.
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
    );
    expect(await inDrawer()).toBe(true);
    expect(await page.getByRole('button', { name: /^Key/ }).getAttribute('aria-expanded')).toBe(
      'false',
    );
  });

  it('390: the conversations are a drawer: a labelled menu button opens it, Escape and a click outside close it', async () => {
    const page = await web.open(VIEWPORTS[1]);
    await openWithKey(page, web.app().url, KEY);
    const menu = page.getByRole('button', { name: 'Conversations' });
    const sidebar = page.getByTestId('sidebar');
    await menu.waitFor();
    expect(await sidebar.isVisible()).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.click();
    await page.waitForFunction(() =>
      document.querySelector('#sidebar')!.contains(document.activeElement),
    );
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await sidebar.getByTestId('conversations').locator('li').nth(3).waitFor();
    // The drawer slides in (0.2 s): the screenshot waits until it is all in view.
    await page.waitForFunction(
      () => document.querySelector('#sidebar')!.getBoundingClientRect().left === 0,
    );
    await shot(page, 'layout-phone-drawer');
    await page.keyboard.press('Escape');
    await page.waitForFunction(
      () => document.activeElement === document.querySelector('[data-testid="menu"]'),
    );
    await sidebar.waitFor({ state: 'hidden' });
    // A click outside the drawer (on the dimmed page beside it) closes it too.
    await menu.click();
    await page.getByTestId('backdrop').click({ position: { x: 370, y: 400 } });
    await page.waitForFunction(() => !document.querySelector('[data-testid="backdrop"]'));
    await page.getByTestId('sidebar').waitFor({ state: 'hidden' });
    // Wide: no menu button, the list beside the chat.
    await page.setViewportSize({ width: 1280, height: 800 });
    await sidebar.waitFor({ state: 'visible' });
    expect(await menu.isVisible()).toBe(false);
  }, 60_000);

  it('360: the header fits, the key form folds behind "Key" and shows its whole placeholder', async () => {
    const page = await web.open({ width: 360, height: 740 });
    await page.goto(web.app().url);
    // Without a key the app answers 401: the key form opens by itself, its field focused.
    const field = page.getByTestId('api-key');
    await field.waitFor();
    await page.waitForFunction(() => document.activeElement?.id === 'api-key');
    // Escape folds it behind the "Key" button, which opens it again.
    await page.keyboard.press('Escape');
    await field.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: /^Key/ }).click();
    await field.waitFor();
    const fit = await field.evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = `${style.fontSize} ${style.fontFamily}`;
      const room =
        input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return { text: context.measureText(input.placeholder).width, room };
    });
    expect(fit.text).toBeLessThanOrEqual(fit.room);
    const header = await page.locator('header').evaluate((bar) => ({
      overflows: bar.scrollWidth > bar.clientWidth,
      links: [...bar.querySelectorAll('nav a')].map((a) => a.getBoundingClientRect().right),
    }));
    expect(header.overflows).toBe(false);
    for (const right of header.links) expect(right).toBeLessThanOrEqual(360);
    expect(await layoutOf(page)).toMatchObject({ windowScrollsSideways: false });
    await shot(page, 'layout-360-key-open');
    // The wide header shows the field inline, its placeholder whole too.
    await page.setViewportSize({ width: 1280, height: 800 });
    const wide = await field.evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = `${style.fontSize} ${style.fontFamily}`;
      return (
        input.clientWidth -
        parseFloat(style.paddingLeft) -
        parseFloat(style.paddingRight) -
        context.measureText(input.placeholder).width
      );
    });
    expect(wide).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
