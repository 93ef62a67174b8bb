import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { openAiAnswer } from '../support/fake-llm-server.js';
import { KEYS, VIEWPORTS, api, openWithKey, shot, webSuite } from '../support/web-harness.js';

/** Sends `text` from the composer. */
async function send(page: Page, text: string) {
  await page.getByTestId('composer').fill(text);
  await page.getByTestId('composer').press('Enter');
}

describe('errors and empty states in plain words', () => {
  const web = webSuite({ AGENT_RUN_ATTEMPTS: '1' });

  it.each(VIEWPORTS)(
    '$name: without a key, says where the key goes and puts the focus there',
    async (viewport) => {
      const page = await web.open(viewport);
      await page.goto(web.app().url);
      const said = page.getByTestId('chat-error');
      await said.waitFor();
      expect(await said.innerText()).toBe(
        "This page needs an API key: enter one of the app's API_KEYS above.",
      );
      await page.waitForFunction(() => document.activeElement?.id === 'api-key');
      // Said once: the conversation list does not repeat it.
      expect(await page.getByText('needs an API key').count()).toBe(1);
      await shot(page, `errors-${viewport.name}-no-key`);
      // A wrong key: the page says it was refused (once), never the server's JSON.
      await page.getByTestId('api-key').fill('not-a-key');
      await page.getByTestId('save-key').click();
      await said.getByText('refused this API key').waitFor();
      expect(await said.innerText()).toBe(
        "The server refused this API key: enter one of the app's API_KEYS above.",
      );
      expect(await page.getByText('refused this API key').count()).toBe(1);
      expect(await page.getByText('needs an API key').count()).toBe(0);
      expect(await page.locator('main').innerText()).not.toMatch(/statusCode|[{}]/);
    },
    60_000,
  );

  it('keeps a message that failed to send, marked "Not sent", and sends it again on Retry', async () => {
    const page = await web.open();
    await openWithKey(page, web.app().url, KEYS[0]!);
    await page.getByTestId('welcome').waitFor();
    // The server fails the request (500).
    await page.route('**/conversations/*/chat', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: '{"statusCode":500,"message":"Internal server error"}',
      }),
    );
    await send(page, 'Hello **there**');
    const failed = page.getByTestId('not-sent');
    await failed.waitFor();
    expect(await failed.innerText()).toContain(
      "Not sent. The server had a problem (error 500). Try again in a moment; if it keeps happening, check the server's log.",
    );
    expect(await page.getByTestId('message-user').innerText()).toContain('Hello there');
    await shot(page, 'errors-wide-not-sent');
    // Too many requests: a plain sentence, no JSON.
    await page.unroute('**/conversations/*/chat');
    await page.route('**/conversations/*/chat', (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        body: '{"statusCode":429,"message":"ThrottlerException: Too Many Requests"}',
      }),
    );
    await page.getByTestId('retry').click();
    await failed.getByText('Too many requests for now. Wait a moment, then try again.').waitFor();
    expect(await page.getByTestId('message-user').count()).toBe(1);
    // The server back: Retry sends the same text, once.
    await page.unroute('**/conversations/*/chat');
    web.llm.reset();
    web.llm.enqueue(openAiAnswer('Hello to you.'));
    await page.getByTestId('retry').click();
    await page.getByTestId('message-assistant').getByText('Hello to you.').waitFor();
    expect(await failed.count()).toBe(0);
    expect(await page.getByTestId('message-user').count()).toBe(1);
    const sent = web.llm.requests[0]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(sent.at(-1)).toMatchObject({ role: 'user', content: 'Hello **there**' });
  }, 60_000);

  it('Retry of an earlier failed message keeps the turns sent since, and the resent one comes last', async () => {
    web.llm.reset();
    const page = await web.open();
    await openWithKey(page, web.app().url, KEYS[0]!);
    await page.getByTestId('new-conversation').click();
    await page.route(
      '**/conversations/*/chat',
      (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }),
      { times: 1 },
    );
    await send(page, 'First try');
    await page.getByTestId('not-sent').waitFor();
    web.llm.enqueue(openAiAnswer('Reply to the second.'));
    await send(page, 'Second');
    await page.getByText('Reply to the second.').waitFor();
    web.llm.enqueue(openAiAnswer('Reply to the first.'));
    await page.getByTestId('retry').click();
    await page.getByText('Reply to the first.').waitFor();
    expect(await page.getByTestId('message-user').allInnerTexts()).toEqual([
      expect.stringContaining('Second'),
      expect.stringContaining('First try'),
    ]);
    expect(await page.getByTestId('message-assistant').allInnerTexts()).toEqual([
      expect.stringContaining('Reply to the second.'),
      expect.stringContaining('Reply to the first.'),
    ]);
    expect(await page.getByTestId('not-sent').count()).toBe(0);
  }, 60_000);

  it('says "Can\'t reach the server" when nothing answers, and Remove takes the message off', async () => {
    const page = await web.open(VIEWPORTS[1]);
    await openWithKey(page, web.app().url, KEYS[1]!);
    await page.getByTestId('welcome').waitFor();
    await page.route('**/conversations/**', (route) => route.abort('connectionrefused'));
    await send(page, 'Is anyone there?');
    const failed = page.getByTestId('not-sent');
    await failed.waitFor({ timeout: 15_000 });
    expect(await failed.innerText()).toContain(
      "Can't reach the server. Check that it is running, then try again.",
    );
    await shot(page, 'errors-phone-unreachable');
    await page.getByTestId('remove').click();
    expect(await page.getByTestId('message-user').count()).toBe(0);
    await page.unroute('**/conversations/**');
  }, 60_000);

  it('a model failure is said as the server says it (an error chunk), and nothing is stored', async () => {
    web.llm.reset();
    web.llm.enqueue({ kind: 'json', status: 500, body: { error: { message: 'boom' } } });
    const page = await web.open();
    await openWithKey(page, web.app().url, KEYS[2]!);
    await send(page, 'Will this work?');
    const failed = page.getByTestId('not-sent');
    await failed.waitFor();
    const text = await failed.innerText();
    expect(text).toMatch(/^Not sent\. \S/);
    expect(text).not.toMatch(/[{}]/);
    const conversation = await page.evaluate(() => localStorage.getItem('agent-memory:current'));
    const stored = await api<{ messages: unknown[] }>(
      web.app().url,
      KEYS[2]!,
      `/conversations/${conversation}/messages`,
    );
    expect(stored.body.messages).toEqual([]);
  }, 60_000);

  it('empty states: "No conversations yet", a welcome whose example prompts send', async () => {
    web.llm.reset();
    web.llm.fallback = openAiAnswer('Noted.');
    const page = await web.open();
    await openWithKey(page, web.app().url, KEYS[3]!);
    await page.getByTestId('no-conversations').getByText('No conversations yet').waitFor();
    // The new conversation the list shows above it is not stored until its first message.
    expect(await page.getByTestId('no-conversations').innerText()).toContain(
      'the new one above is kept once you send its first message',
    );
    const welcome = page.getByTestId('welcome');
    await welcome.getByText('Ask anything.').waitFor();
    expect(await welcome.innerText()).toContain('This conversation is remembered');
    const examples = welcome.getByTestId('example');
    expect(await examples.count()).toBeGreaterThanOrEqual(2);
    const example = await examples.first().innerText();
    await examples.first().click();
    await page.getByTestId('message-assistant').getByText('Noted.').waitFor();
    expect(await page.getByTestId('message-user').innerText()).toBe(example);
    expect(await welcome.count()).toBe(0);
    // The list has it now (from the server), and no "No conversations yet".
    await page.getByTestId('no-conversations').waitFor({ state: 'detached' });
    await page.goto(`${web.app().url}/inspector`);
    await page.getByTestId('conversations').locator('li').first().waitFor();
    // Another key (tenant) starts from a new conversation, not the last tenant's.
    const before = await page.evaluate(() => localStorage.getItem('agent-memory:current'));
    await page.goto(web.app().url);
    await page.getByTestId('api-key').fill(KEYS[4]!);
    await page.getByTestId('save-key').click();
    await page.getByTestId('welcome').waitFor();
    await page.getByTestId('no-conversations').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('agent-memory:current'))).not.toBe(
      before,
    );
  }, 60_000);

  it.each(VIEWPORTS)(
    '$name: renames a conversation inline (Enter saves, Escape cancels) and deletes one after confirming',
    async (viewport) => {
      const key = KEYS[5]!;
      const [first, second] = [`${viewport.name}-first-talk`, `${viewport.name}-second-talk`];
      web.llm.reset();
      web.llm.fallback = openAiAnswer('ok');
      for (const id of [first, second])
        await api(web.app().url, key, `/conversations/${id}/turns`, {
          method: 'POST',
          body: { message: `hello from ${id}` },
        });
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, key);
      // On a phone the list is a drawer: opened before each use.
      const showList = async () => {
        const menu = page.getByRole('button', { name: 'Conversations' });
        if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false')
          await menu.click();
      };
      await showList();
      const item = (id: string) => page.locator(`li[data-conversation-id="${id}"]`);
      await item(first).waitFor();
      // Escape leaves the title as it was.
      await item(first).getByTestId('rename').click();
      await page.getByTestId('rename-input').fill('Not this');
      await page.getByTestId('rename-input').press('Escape');
      await page.getByTestId('rename-input').waitFor({ state: 'detached' });
      expect(await item(first).getByText('Not this').count()).toBe(0);
      // Enter saves it on the server.
      await item(first).getByTestId('rename').click();
      await page.getByTestId('rename-input').fill('Trip to Lisbon');
      await page.getByTestId('rename-input').press('Enter');
      await item(first).getByText('Trip to Lisbon').waitFor();
      await page.reload();
      await showList();
      await item(first).getByText('Trip to Lisbon').waitFor();
      // Delete asks first; Cancel keeps it, Delete deletes it.
      await item(second).getByTestId('delete').click();
      const dialog = page.getByTestId('delete-dialog');
      await dialog.getByRole('heading', { name: /^Delete “.*second-talk”\?$/ }).waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await item(second).count()).toBe(1);
      await item(second).getByTestId('delete').click();
      await page.getByTestId('confirm-delete').click();
      await item(second).waitFor({ state: 'detached' });
      const listed = await api<{
        conversations: Array<{ conversationId: string; title?: string }>;
      }>(web.app().url, key, '/conversations');
      expect(
        listed.body.conversations.filter((c) => c.conversationId.startsWith(viewport.name)),
      ).toEqual([expect.objectContaining({ conversationId: first, title: 'Trip to Lisbon' })]);
    },
    60_000,
  );
});
