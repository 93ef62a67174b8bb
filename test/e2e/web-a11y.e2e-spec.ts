import AxeBuilder from '@axe-core/playwright';
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { openAiAnswer } from '../support/fake-llm-server.js';
import {
  KEYS,
  conversationButton,
  VIEWPORTS,
  api,
  openWithKey,
  webSuite,
} from '../support/web-harness.js';

const KEY = KEYS[0]!;

/** The serious and critical violations axe finds on the page as it is (rule: nodes). */
async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

describe('accessibility (axe: no serious or critical violations, 1280 and 390 px)', () => {
  const web = webSuite();

  beforeAll(async () => {
    web.llm.fallback = openAiAnswer(
      'A **reply** with `code`:\n\n```\nnpm start\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |',
    );
    for (const text of ['Hello', 'What do you know?'])
      await api(web.app().url, KEY, '/conversations/axe-talk/turns', {
        method: 'POST',
        body: { message: text },
      });
  }, 60_000);

  it.each(VIEWPORTS)(
    '$name: the chat with messages, with an error, and (narrow) with the drawer open; the inspector',
    async (viewport) => {
      const page = await web.open(viewport);
      // Without a key: the error, the key form open.
      await page.goto(web.app().url);
      await page.getByTestId('chat-error').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // With messages (Markdown, a code block with Copy, a table) and a failed message.
      await openWithKey(page, web.app().url, KEY);
      const menu = page.getByTestId('menu');
      if (await menu.isVisible()) await menu.click();
      await conversationButton(page, 'axe-talk').click();
      await page.getByTestId('message-assistant').first().locator('pre').waitFor();
      await page.route('**/conversations/*/chat', (route) =>
        route.fulfill({ status: 503, contentType: 'application/json', body: '{}' }),
      );
      await page.getByTestId('composer').fill('This one fails');
      await page.getByTestId('composer').press('Enter');
      await page.getByTestId('not-sent').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // The welcome of an empty conversation.
      if (await menu.isVisible()) await menu.click();
      await page.getByTestId('new-conversation').click();
      await page.getByTestId('welcome').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      if (viewport.name === 'phone') {
        await menu.click();
        await page.getByTestId('sidebar').getByTestId('new-conversation').waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        await page.keyboard.press('Escape');
      }
      // The delete confirmation.
      if (await menu.isVisible()) await menu.click();
      await page.locator('li[data-conversation-id="axe-talk"]').getByTestId('delete').click();
      await page.getByTestId('delete-dialog').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      // The inspector with a conversation, its runs open, and records.
      await page.goto(`${web.app().url}/inspector`);
      await conversationButton(page, 'axe-talk').click();
      await page.getByTestId('inspector-messages').waitFor();
      await page.getByTestId('run').first().locator('summary').click();
      await page.getByTestId('run-step').first().waitFor();
      await page.getByTestId('records').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    },
    90_000,
  );
});
