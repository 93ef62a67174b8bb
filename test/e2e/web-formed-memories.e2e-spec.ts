import { beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { openAiAnswer } from '../support/fake-llm-server.js';
import { KEYS, VIEWPORTS, api, openWithKey, shot, webSuite } from '../support/web-harness.js';

const KEY = KEYS[0]!;
/** A conversation id as the chat page makes them (`chat-` and eight hex digits). */
const CONVERSATION = 'chat-5f0e9a1c';

describe('the inspector shows formed memories: what holds, every version, history, source', () => {
  const web = webSuite({ AGENT_FORMATION: 'plain-statements' });

  beforeAll(async () => {
    web.llm.fallback = openAiAnswer('Noted.');
    for (const message of ['My name is Ada. I live in Lisbon.', 'Actually I moved to Porto.']) {
      const turn = await api(web.app().url, KEY, `/conversations/${CONVERSATION}/turns`, {
        method: 'POST',
        body: { message, entityId: 'me' },
      });
      expect(turn.status).toBe(201);
    }
    // Formation runs after each turn: wait until Porto replaced Lisbon.
    for (let i = 0; i < 200; i += 1) {
      const listed = await api(web.app().url, KEY, '/entities/me/formed-memories');
      const texts = (listed.body as { memories: Array<{ text: string }> }).memories.map(
        (m) => m.text,
      );
      if (texts.includes('The user lives in Porto')) break;
      await sleep(50);
    }
  }, 60_000);

  it.each(VIEWPORTS)(
    '$name',
    async (viewport) => {
      const page = await web.open(viewport);
      await openWithKey(page, web.app().url, KEY, '/inspector');
      const table = page.getByTestId('formed-memories');
      await table.getByText('The user lives in Porto').waitFor();
      expect(await table.locator('th').allInnerTexts()).toEqual([
        'Memory',
        'Kind',
        'Since',
        'Status',
        'Source',
      ]);
      expect(await table.locator('tbody tr').count()).toBe(2);
      expect(await table.innerText()).not.toContain('Lisbon');
      // Every version: the replaced one too, said so.
      await page.getByTestId('formed-all').check();
      await table.getByText('The user lives in Lisbon').waitFor();
      const lisbon = table.locator('tbody tr', { hasText: 'Lisbon' });
      expect(await lisbon.innerText()).toContain('replaced on');
      // On a wide screen the table fits its column: no source button cut at its edge.
      if (viewport.name === 'wide')
        expect(
          await page
            .getByRole('region', { name: 'Formed memories' })
            .evaluate((region) => region.scrollWidth - region.clientWidth),
        ).toBeLessThanOrEqual(0);
      // A memory's history, oldest first.
      await table
        .locator('tbody tr', { hasText: 'Porto' })
        .getByTestId('formed-history-open')
        .click();
      const history = page.getByTestId('formed-history');
      await history.getByText('The user lives in Porto').waitFor();
      const rows = await history.locator('tbody tr td:first-child').allInnerTexts();
      expect(rows.map((text) => text.replace(/\s*History$/, ''))).toEqual([
        'The user lives in Lisbon',
        'The user lives in Porto',
      ]);
      // The profile the demo formed beside the memories: Porto replaced Lisbon, the name kept.
      const profile = page.getByTestId('profile');
      await profile.getByText('Porto').waitFor();
      expect(await profile.locator('dt').allInnerTexts()).toEqual(['city', 'name']);
      expect(await profile.locator('dd').allInnerTexts()).toEqual(['Porto', 'Ada']);
      expect(await page.getByTestId('profile-version').innerText()).toMatch(
        /^Version 2, formed on /,
      );
      await page.getByTestId('profile-history-open').click();
      const versions = page.getByTestId('profile-history').locator('li');
      await versions.nth(1).waitFor();
      const patches = (await versions.allInnerTexts()).map((text) => {
        const [, head, patch] = /^(Version \d \(formation, .*\)): (\{.*\})$/.exec(text) ?? [];
        return [head?.replace(/,.*/, ''), JSON.parse(patch ?? 'null') as unknown];
      });
      expect(patches).toEqual([
        ['Version 1 (formation', { name: 'Ada', city: 'Lisbon' }],
        ['Version 2 (formation', { city: 'Porto' }],
      ]);
      // The jobs that formed them, newest first: what each applied, and its profile change.
      const jobs = page.getByTestId('formation-job');
      await jobs.nth(1).waitFor();
      expect(await jobs.getByTestId('formation-job-operations').allInnerTexts()).toEqual([
        'UPDATE 1',
        'ADD 2',
      ]);
      expect(await jobs.getByTestId('formation-job-profile').allInnerTexts()).toEqual([
        'profile applied (city), version 2',
        'profile applied (name, city), version 1',
      ]);
      expect(await jobs.first().innerText()).toContain('plain-statements');
      await shot(page, `formed-memories-${viewport.name}`, true);
      // Its source opens the conversation at the message it rests on.
      await lisbon.getByTestId('formed-source').click();
      await page
        .getByTestId('found-message')
        .getByText('My name is Ada. I live in Lisbon.')
        .waitFor();
      expect(await page.getByTestId('inspect-conversation').inputValue()).toBe(CONVERSATION);
      // With the conversation open, its own jobs (both of them here).
      await page
        .getByRole('heading', { name: `Formation jobs of ${CONVERSATION}, newest first` })
        .waitFor();
      expect(await jobs.count()).toBe(2);
      expect(
        await page.evaluate(
          () => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth,
        ),
      ).toBe(true);
    },
    60_000,
  );

  it('shows nothing of an entity or conversation it could not open, only the error', async () => {
    const page = await web.open(VIEWPORTS[0]);
    await openWithKey(page, web.app().url, KEY, '/inspector');
    await page.getByTestId('formed-memories').getByText('The user lives in Porto').waitFor();
    await page.getByTestId('profile').waitFor();
    await page.getByTestId('formation-job').first().waitFor();
    await page.getByLabel('Entity').fill('bad id!');
    await page
      .getByTestId('inspector-error')
      .getByText(/entityId must be/)
      .waitFor();
    await page.getByTestId('formed-memories').waitFor({ state: 'detached' });
    await page.getByTestId('formation-job').first().waitFor({ state: 'detached' });
    for (const shown of [
      'records',
      'no-records',
      'no-formed-memories',
      'profile',
      'no-profile',
      'formation-job',
      'formation-failures',
    ])
      expect([shown, await page.getByTestId(shown).count()]).toEqual([shown, 0]);
    // A good entity again: its memories and profile come back, the error goes.
    await page.getByLabel('Entity').fill('me');
    await page.getByTestId('formed-memories').getByText('The user lives in Porto').waitFor();
    await page.getByTestId('profile').waitFor();
    await page.getByTestId('inspector-error').waitFor({ state: 'detached' });

    await page.getByTestId('inspect-conversation').fill(CONVERSATION);
    await page.getByTestId('open-conversation').click();
    await page.getByTestId('inspector-messages').waitFor();
    await page.getByTestId('inspect-conversation').fill('no such conversation');
    await page.getByTestId('open-conversation').click();
    await page
      .getByTestId('inspector-error')
      .getByText(/conversationId must be/)
      .waitFor();
    await page.getByTestId('inspector-messages').waitFor({ state: 'detached' });
    expect(await page.getByTestId('version').count()).toBe(0);
  }, 60_000);

  it('Recall by content finds formed memories, and says a refused search under its own form', async () => {
    const page = await web.open(VIEWPORTS[0]);
    await openWithKey(page, web.app().url, KEY, '/inspector');
    await page.getByTestId('formed-memories').getByText('The user lives in Porto').waitFor();
    await page.getByLabel('Words').fill('zanzibar');
    await page.getByTestId('recall').click();
    await page.getByTestId('recall-none').waitFor();
    // No embedder here: the server refuses a vector-only search, and the page says so by the
    // button, not in the banner at the top, with the previous answer gone.
    await page.getByTestId('recall-mode').selectOption('vector');
    await page.getByTestId('recall').click();
    const refused = page.getByTestId('recall-error');
    await refused.getByText(/vector needs an embedder/).waitFor();
    expect(await page.getByTestId('recall-none').count()).toBe(0);
    expect(await page.getByTestId('inspector-error').count()).toBe(0);
    const button = (await page.getByTestId('recall').boundingBox())!;
    const error = (await refused.boundingBox())!;
    expect(error.y - button.y).toBeLessThan(200);

    // No match among messages says where messages come from.
    await page.getByTestId('recall-mode').selectOption('hybrid');
    await page.getByTestId('recall-scope').selectOption('messages');
    await page.getByTestId('recall').click();
    await page.getByTestId('recall-none').getByText('AGENT_RECALL_MESSAGES=true').waitFor();
    expect(await refused.count()).toBe(0);

    // Formed memories: the active ones that best match, with the source they rest on.
    await page.getByTestId('recall-scope').selectOption('memories');
    // Searched by full-text, and by vector with an embedder: no lists to choose.
    expect(await page.getByTestId('recall-mode').count()).toBe(0);
    await page.getByLabel('Words').fill('where do I live');
    await page.getByTestId('recall').click();
    const found = page.getByTestId('recall-memories');
    await found.getByText('The user lives in Porto').waitFor();
    expect(await found.locator('tbody tr').count()).toBe(1);
    expect(await refused.count()).toBe(0);
    await page.getByLabel('Words').fill('Lisbon');
    await page.getByTestId('recall').click();
    await page
      .getByTestId('recall-none')
      .getByText('no active formed memory matches these words')
      .waitFor();
    await page.getByLabel('Words').fill('live');
    await page.getByTestId('recall').click();
    await found.getByTestId('formed-source').click();
    await page.getByTestId('found-message').getByText('Actually I moved to Porto.').waitFor();
    // Another entity: this one's answer goes.
    await page.getByLabel('Entity').fill('someone-else');
    await found.waitFor({ state: 'detached' });
  }, 60_000);
});
