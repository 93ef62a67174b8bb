import { beforeAll, describe, expect, it } from '@jest/globals';
import { openAiAnswer } from '../support/fake-llm-server.js';
import {
  KEYS,
  conversationButton,
  VIEWPORTS,
  api,
  openWithKey,
  seedTurns,
  shot,
  webSuite,
} from '../support/web-harness.js';

const KEY = KEYS[0]!;

describe('the memory inspector (1280×800 and 390×844)', () => {
  const web = webSuite({ AGENT_RECALL_MESSAGES: 'true' });

  beforeAll(async () => {
    // A turn that saves a long-term record, and a working-memory entry.
    web.llm.enqueue(
      openAiAnswer(null, [
        { id: 'call_0', name: 'memory_save', arguments: '{"key":"profile/city","value":"Lisbon"}' },
      ]),
      openAiAnswer('Noted: you live in Lisbon.'),
    );
    const turn = await api(web.app().url, KEY, '/conversations/inspected/turns', {
      method: 'POST',
      body: { message: 'I live in Lisbon', entityId: 'me' },
    });
    expect(turn.status).toBe(201);
    const put = await api(web.app().url, KEY, '/conversations/inspected/working-memory/draft', {
      method: 'PUT',
      body: { value: { step: 2 } },
    });
    expect(put.status).toBe(204);
  }, 60_000);

  it('opens the conversation the chat showed last, without an Open press', async () => {
    const page = await web.open(VIEWPORTS[0]);
    await openWithKey(page, web.app().url, KEY);
    await conversationButton(page, 'inspected').click();
    await page.getByTestId('messages').getByText('Noted: you live in Lisbon.').waitFor();
    await page.getByRole('link', { name: 'Inspector' }).click();
    await page.getByTestId('inspector-messages').getByText('I live in Lisbon').waitFor();
    expect(await page.getByTestId('inspect-conversation').inputValue()).toBe('inspected');
    expect(await page.getByTestId('working-memory').innerText()).toContain('draft');
  }, 60_000);

  it('"More runs" adds runs of the conversation shown, whatever the id field holds meanwhile', async () => {
    web.llm.reset();
    web.llm.fallback = openAiAnswer('Fine.');
    await seedTurns(web.app().url, KEY, 'many-runs', 21);
    const page = await web.open(VIEWPORTS[0]);
    await openWithKey(page, web.app().url, KEY, '/inspector');
    await conversationButton(page, 'many-runs').click();
    const runs = page.getByTestId('run');
    await runs.nth(19).waitFor();
    // Another id typed, not opened: More still pages the conversation on screen.
    await page.getByLabel('Conversation id').fill('inspected');
    await page.getByRole('button', { name: 'More runs' }).click();
    await runs.nth(20).waitFor();
    expect(await runs.count()).toBe(21);
    const messages = page.getByTestId('inspector-messages');
    expect(await messages.innerText()).toContain('question 20');
    expect(await messages.innerText()).not.toContain('I live in Lisbon');
  }, 60_000);

  it.each(VIEWPORTS)(
    '$name: column headers, labelled fields, short ids with copy, records loaded on open, plain "no" answers',
    async (viewport) => {
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, KEY, '/inspector');
      // The entity's records load on open: no Search press.
      const records = page.getByTestId('records');
      await records.getByText('"Lisbon"').waitFor();
      expect(await records.locator('th').allInnerTexts()).toEqual([
        'Key',
        'Value',
        'Seq',
        'Updated',
      ]);
      await conversationButton(page, 'inspected').click();
      const messages = page.getByTestId('inspector-messages');
      await messages.getByText('I live in Lisbon').waitFor();
      expect(await messages.locator('th').allInnerTexts()).toEqual([
        'Position',
        'Id',
        'Role',
        'Content',
      ]);
      expect(await page.getByTestId('working-memory').locator('th').allInnerTexts()).toEqual([
        'Key',
        'Size',
        'Value',
      ]);
      // Ids: 8 characters, "…" and the message's place in its turn (`runId:i`), the whole id in
      // the title, on one line, with a copy button: a turn's messages stay told apart.
      const id = messages.locator('tbody tr').first().locator('td').nth(1);
      const code = id.locator('code');
      const full = (await code.getAttribute('title'))!;
      expect(full).toMatch(/^.{9,}:\d+$/);
      expect(await code.innerText()).toBe(
        `${full.slice(0, 8)}…${full.slice(full.lastIndexOf(':'))}`,
      );
      // The content has room: a short message on one line, at either width (a phone shows each
      // message as a card, its content below its position, id and role).
      const content = messages.locator('tbody tr').first().locator('td.content');
      const box = await content.evaluate((cell) => {
        const { width, height } = cell.getBoundingClientRect();
        return { width, height, line: parseFloat(getComputedStyle(cell).lineHeight) };
      });
      expect(box.width).toBeGreaterThanOrEqual(viewport.name === 'wide' ? 150 : 300);
      expect(box.height).toBeLessThan(box.line * 1.5 + 16);
      const shown = await messages.locator('tbody tr td:nth-child(2) code').allInnerTexts();
      expect(new Set(shown).size).toBe(shown.length);
      const lineHeight = await code.evaluate((c) => parseFloat(getComputedStyle(c).lineHeight));
      expect(await code.evaluate((c) => c.getBoundingClientRect().height)).toBeLessThan(
        lineHeight * 1.5,
      );
      await id.getByRole('button', { name: `Copy id ${full}` }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(full);
      // Every field has a label; headings go h1 → h2 → h3 with no level skipped.
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea')]
          .filter((field) => (field as HTMLInputElement).type !== 'file')
          .filter(
            (field) =>
              !(field as HTMLInputElement).labels?.length && !field.getAttribute('aria-label'),
          )
          .map((field) => field.outerHTML),
      );
      expect(unlabelled).toEqual([]);
      const levels = await page.evaluate(() =>
        [...document.querySelectorAll('h1, h2, h3, h4')].map((h) => Number(h.tagName[1])),
      );
      expect(levels[0]).toBe(1);
      expect(levels.filter((level) => level === 1)).toHaveLength(1);
      levels.forEach((level, i) => i > 0 && expect(level).toBeLessThanOrEqual(levels[i - 1]! + 1));
      // The window never scrolls sideways: wide tables scroll inside their own box.
      expect(
        await page.evaluate(
          () => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth,
        ),
      ).toBe(true);
      await shot(page, `inspector-${viewport.name}`, true);
      // A prefix with no records, a recall with no hits: said plainly.
      await page.getByLabel('Key prefix').fill('nothing/');
      await page.getByTestId('search-records').click();
      await page.getByTestId('no-records').getByText('No records').waitFor();
      await page.getByLabel('Words').fill('zanzibar');
      await page.getByTestId('recall').click();
      await page
        .getByTestId('recall-none')
        .getByText(/^No matches/)
        .waitFor();
      // Another entity: its records load without a Search press.
      await page.getByLabel('Key prefix').fill('');
      await page.getByLabel('Entity').fill('someone-else');
      await page.getByTestId('no-records').waitFor();
      await page.getByLabel('Entity').fill('me');
      await records.getByText('"Lisbon"').waitFor();
      // A conversation with no messages.
      await page.getByLabel('Conversation id').fill('never-used');
      await page.getByTestId('open-conversation').click();
      await page
        .getByTestId('version')
        .getByText(/^No messages yet/)
        .waitFor();
    },
    60_000,
  );
});
