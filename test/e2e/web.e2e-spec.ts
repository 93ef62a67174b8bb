import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { appPerSuite, embeddedEnv } from '../support/app-harness.js';
import { FakeLlmServer, openAiAnswer } from '../support/fake-llm-server.js';

/** Where the screenshots of each step go (test artefacts; two are in the README). */
const SHOTS = fileURLToPath(new URL('../../test-artifacts/web/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const llm = new FakeLlmServer();
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A 24-bit BMP of a colour gradient (a large picture without an image library). */
function gradientBmp(width: number, height: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const buffer = Buffer.alloc(54 + row * height);
  buffer.write('BM', 0, 'ascii');
  buffer.writeUInt32LE(buffer.length, 2);
  buffer.writeUInt32LE(54, 10);
  buffer.writeUInt32LE(40, 14);
  buffer.writeInt32LE(width, 18);
  buffer.writeInt32LE(height, 22);
  buffer.writeUInt16LE(1, 26);
  buffer.writeUInt16LE(24, 28);
  buffer.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const at = 54 + y * row + x * 3;
      buffer[at] = (x * 255) / width;
      buffer[at + 1] = (y * 255) / height;
      buffer[at + 2] = 128;
    }
  return buffer;
}
let llmUrl = '';

const answer = (text: string | null, toolCalls: Parameters<typeof openAiAnswer>[1] = []) =>
  openAiAnswer(text, toolCalls, 20);

describe('the web page in a real browser (Chromium, embedded default)', () => {
  let browser: Browser;
  let page: Page;
  const running = appPerSuite(
    () => ({
      ...embeddedEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
      AGENT_RECALL_MESSAGES: 'true',
      API_KEYS:
        'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001,tenantC:key-of-tenant-c-0001,tenantD:key-of-tenant-d-0001',
    }),
    {
      beforeAll: (fn) =>
        beforeAll(async () => {
          llmUrl = await llm.start();
          await fn();
        }),
      afterAll,
    },
  );

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await llm.stop();
  });

  const shot = (name: string) =>
    page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  async function useKey(key: string) {
    await page.getByTestId('api-key').fill(key);
    await page.getByTestId('save-key').click();
  }

  const streamsAReply = async () => {
    llm.reset();
    llm.enqueue(answer('Hello Ada, nice to meet you.'));
    await page.goto(running().url);
    await useKey('key-of-tenant-a-0001');
    await page.getByTestId('composer').fill('Hi, I am Ada');
    await page.getByTestId('send').click();
    const reply = page.getByTestId('message-assistant').last();
    await reply.getByText('Hello Ada, nice to meet you.').waitFor();
    await shot('1-streamed-reply');
    // The key lives in this tab's session only, never in local storage.
    expect(
      await page.evaluate(
        "[sessionStorage.getItem('agent-memory:api-key'), localStorage.getItem('agent-memory:api-key')]",
      ),
    ).toEqual(['key-of-tenant-a-0001', null]);
    // The bundle is served without its source map.
    expect((await fetch(`${running().url}/assets/app.js.map`)).status).toBe(404);
  };

  const showsAToolCall = async () => {
    llm.reset();
    llm.enqueue(
      answer(null, [
        { id: 'call_0', name: 'memory_save', arguments: '{"key":"profile/city","value":"Lisbon"}' },
      ]),
      answer('Noted: you live in Lisbon.'),
    );
    await page.getByTestId('composer').fill('Remember that I live in Lisbon');
    await page.getByTestId('send').click();
    const tool = page.getByTestId('tool-part').last();
    await tool.getByText('memory_save').waitFor();
    await tool.getByTestId('tool-output').getByText('"saved":"profile/city"').waitFor();
    await page.getByTestId('messages').getByText('Noted: you live in Lisbon.').waitFor();
    await shot('2-tool-call');
  };

  const keepsTheHistoryOverAReload = async () => {
    await page.reload();
    // (In the message list: the conversation list may show a preview of the same words.)
    const messages = page.getByTestId('messages');
    await messages.getByText('Hi, I am Ada').waitFor();
    await messages.getByText('Noted: you live in Lisbon.').waitFor();
    await page.getByTestId('tool-part').getByText('memory_save').waitFor();
    expect(await page.getByTestId('message-user').count()).toBe(2);
    // The sidebar lists the tenant's conversations from the server: this one.
    // (Asked here, not caught from the page: a list request of the page before the reload could
    // be caught instead, its body gone with the navigation.)
    const served = (await (
      await fetch(`${running().url}/conversations?limit=20`, {
        headers: { Authorization: 'Bearer key-of-tenant-a-0001' },
      })
    ).json()) as { conversations: Array<{ conversationId: string }> };
    const shown = await page
      .getByTestId('conversations')
      .locator('li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-conversation-id')));
    expect(served.conversations.map((c) => c.conversationId)).toEqual(shown);
    expect(shown).toHaveLength(1);
    await shot('3-after-reload');
  };

  const findsTheRunInTheInspector = async () => {
    await page.goto(`${running().url}/inspector`);
    const conversations = page.getByTestId('conversations').locator('li');
    await conversations.first().waitFor();
    expect(await conversations.count()).toBe(1);
    await conversations.first().getByRole('button').click();
    await page.getByTestId('version').getByText('version 6').waitFor();
    const runs = page.getByTestId('run');
    expect(await runs.count()).toBe(2);
    const toolRun = runs.first();
    await toolRun.locator('summary').click();
    await toolRun.getByText('completed').waitFor();
    await toolRun.getByText('1 attempt').waitFor();
    await toolRun.getByText('long-term flushed 1').waitFor();
    // Its steps: model call → tool call (with the row it staged) → model call; none replayed.
    const steps = toolRun.getByTestId('run-step');
    await steps.nth(2).waitFor();
    expect(await steps.count()).toBe(3);
    expect(await steps.nth(0).innerText()).toContain('model call');
    await steps.nth(1).getByTestId('run-tool').getByText('memory_save').waitFor();
    expect(await steps.nth(1).innerText()).toContain('staged profile/city = "Lisbon"');
    expect(await toolRun.getByTestId('replayed').count()).toBe(0);
    expect(await toolRun.getByTestId('run-flush').innerText()).toMatch(
      /flushed profile\/city\s*; refused none/,
    );
    await page.getByTestId('inspect-prefix').fill('profile/');
    await page.getByTestId('search-records').click();
    await page.getByTestId('records').getByText('"Lisbon"').waitFor();
    // Recall by content: the record the tool saved, found by its words, with its scores.
    await page.getByTestId('recall-query').fill('lisbon');
    await page.getByTestId('recall').click();
    const hit = page.getByTestId('recall-hit').first();
    await hit.getByText('profile/city').waitFor();
    expect(await hit.innerText()).toMatch(/full-text #1 \(\d+\.\d{3}\)/);
    await page.getByTestId('recall-query').fill('zanzibar');
    await page.getByTestId('recall').click();
    await page.getByTestId('recall-none').getByText('No record matches these words.').waitFor();
    // What was said, found in its conversation: the hit opens it at that message.
    await page.getByTestId('recall-scope').selectOption('messages');
    await page.getByTestId('recall-query').fill('ada');
    await page.getByTestId('recall').click();
    const said = page.getByTestId('recall-hit').first();
    await said.getByText('Hi, I am Ada').waitFor();
    await page.getByTestId('inspect-conversation').fill('');
    await said.getByTestId('recall-open-message').click();
    const opened = page.getByTestId('found-message');
    await opened.getByText('Hi, I am Ada').waitFor();
    expect(await opened.locator('td').first().innerText()).toBe('1');
    expect(await page.getByTestId('inspect-conversation').inputValue()).not.toBe('');
    await page.getByTestId('recall-scope').selectOption('records');
    await page.getByTestId('recall-query').fill('lisbon');
    await page.getByTestId('recall').click();
    await page.getByTestId('recall-hit').first().waitFor();
    await shot('4-inspector');
  };

  // The inspector of the scenario's conversation, under another tenant's key.
  const showsASecondTenantNoneOfIt = async () => {
    await page.goto(`${running().url}/inspector`);
    // The list is asked for with tenant B's key: matched by the request's own key, since the
    // list of whichever key the tab held before may still be on its way (the page drops it).
    const listed = page.waitForResponse(
      (response) =>
        response.url().includes('/conversations?limit=') &&
        response.request().headers()['authorization'] === 'Bearer key-of-tenant-b-0001',
    );
    await useKey('key-of-tenant-b-0001');
    const served = await listed;
    expect(served.status()).toBe(200);
    expect(((await served.json()) as { conversations: unknown[] }).conversations).toEqual([]);
    // Rendered after the answer: wait until no item of the earlier key is shown.
    await page.getByTestId('conversations').locator('li').first().waitFor({ state: 'detached' });
    await page.getByTestId('open-conversation').click();
    await page.getByTestId('version').getByText('version 0').waitFor();
    expect(await page.getByTestId('run').count()).toBe(0);
    await page.getByTestId('search-records').click();
    await page.getByTestId('records').waitFor({ state: 'attached' });
    expect(await page.getByTestId('records').locator('tbody tr').count()).toBe(0);
    await shot('5-other-tenant');
  };

  // One scenario in one browser session: each step builds on the one before, so they are one test
  // (a random test order must not split them).
  it('streams a reply, shows a tool call, keeps the history over a reload, shows the run in the inspector, and a second tenant none of it', async () => {
    await streamsAReply();
    await showsAToolCall();
    await keepsTheHistoryOverAReload();
    await findsTheRunInTheInspector();
    await showsASecondTenantNoneOfIt();
  }, 120_000);

  it('the API link opens the docs without a key; their Authorize sends one, and tenant data needs it', async () => {
    const docs = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      await docs.goto(running().url);
      await docs.getByRole('link', { name: 'API', exact: true }).click();
      await docs.locator('.swagger-ui .info').waitFor();
      const listing = docs.locator('.opblock-get', {
        has: docs.locator('.opblock-summary-path[data-path="/conversations"]'),
      });
      await listing.locator('.opblock-summary-control').click();
      await listing.locator('button.try-out__btn').click();
      const call = async () => {
        const answered = docs.waitForResponse(
          (response) => new URL(response.url()).pathname === '/conversations',
        );
        await listing.locator('button.execute').click();
        const response = await answered;
        return { status: response.status(), auth: response.request().headers()['authorization'] };
      };
      // Without a key: the route refuses (the docs are open, tenant data is not).
      expect(await call()).toEqual({ status: 401, auth: undefined });
      await docs.locator('button.authorize').first().click();
      await docs.locator('.modal-ux input').fill('key-of-tenant-a-0001');
      await docs.locator('.modal-ux button.authorize').click();
      await docs.locator('.modal-ux button.btn-done').click();
      expect(await call()).toEqual({ status: 200, auth: 'Bearer key-of-tenant-a-0001' });
    } finally {
      await docs.close();
    }
  }, 30_000);

  it('attaches images (a large one scaled down), shows them, and shows them again after a reload', async () => {
    llm.reset();
    llm.enqueue(answer('Two pictures: a pixel and a gradient.'));
    await page.goto(running().url);
    await useKey('key-of-tenant-d-0001');
    await page.getByTestId('attach').setInputFiles([
      { name: 'pixel.png', mimeType: 'image/png', buffer: Buffer.from(PNG, 'base64') },
      { name: 'photo.bmp', mimeType: 'image/bmp', buffer: gradientBmp(2400, 1800) },
    ]);
    await page.getByTestId('attached').locator('img').nth(1).waitFor();
    await page.getByTestId('composer').fill('What are these?');
    await page.getByTestId('send').click();
    await page.getByText('Two pictures: a pixel and a gradient.').waitFor();
    const shown = async () =>
      page
        .getByTestId('message-user')
        .getByTestId('message-image')
        .evaluateAll((images) =>
          (images as unknown as Array<{ naturalWidth: number; naturalHeight: number }>).map(
            (image) => [image.naturalWidth, image.naturalHeight],
          ),
        );
    expect(await shown()).toEqual([
      [1, 1],
      [1536, 1152],
    ]);
    // The model got both: the PNG as it was, the 13 MB bitmap as a 1536 px JPEG.
    const sent = (llm.requests[0]!.body.messages as Array<{ role: string; content: unknown }>)
      .filter((m) => m.role === 'user')
      .at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
    // (useChat puts a message's files before its text.)
    expect(sent.map((part) => part.image_url?.url.slice(0, 23) ?? part.type)).toEqual([
      'data:image/png;base64,i',
      'data:image/jpeg;base64,',
      'text',
    ]);
    await shot('6-images');
    await page.reload();
    await page.getByText('Two pictures: a pixel and a gradient.').waitFor();
    await page.getByTestId('message-image').nth(1).waitFor();
    await expect(shown()).resolves.toEqual([
      [1, 1],
      [1536, 1152],
    ]);
  }, 60_000);

  it('pages a long history: the newest 200 messages, then earlier ones on demand', async () => {
    llm.reset();
    llm.fallback = openAiAnswer('ok');
    // 101 turns of 2 messages each, sent through the API as tenant C.
    for (let i = 0; i < 101; i += 1) {
      const response = await fetch(`${running().url}/conversations/long/turns`, {
        method: 'POST',
        headers: {
          Authorization: 'Bearer key-of-tenant-c-0001',
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ message: `question ${i}` }),
      });
      expect(response.status).toBe(201);
    }
    await page.goto(running().url);
    await useKey('key-of-tenant-c-0001');
    // (The list shows titles: the conversation is found by its id.)
    await page.locator('li[data-conversation-id="long"] button.choose').click();
    const messages = page.getByTestId('messages');
    await messages.getByText('question 100').waitFor();
    expect(await page.getByTestId('message-user').count()).toBe(100);
    expect(await messages.getByText('question 0', { exact: true }).count()).toBe(0);
    await page.getByTestId('earlier').click();
    await messages.getByText('question 0', { exact: true }).waitFor();
    expect(await page.getByTestId('message-user').count()).toBe(101);
    expect(await page.getByTestId('earlier').count()).toBe(0);
  }, 60_000);
});
