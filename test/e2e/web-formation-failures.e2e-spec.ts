import { beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { openAiAnswer, openAiCompletion } from '../support/fake-llm-server.js';
import { forcedTool, userMessageId } from '../support/formation-requests.js';
import { KEYS, api, openWithKey, shot, webSuite } from '../support/web-harness.js';

const KEY = KEYS[0]!;

/**
 * The inspector lists formation jobs that failed (the model answered without its tool call, three
 * attempts) and runs one again from the page: once the model answers, the job forms its memory
 * and leaves the list.
 */
describe('the inspector shows failed formation jobs and runs one again', () => {
  const web = webSuite({ AGENT_FORMATION: 'model' });
  let modelWorks = false;

  beforeAll(async () => {
    web.llm.fallback = (request) => {
      const tool = forcedTool(request);
      if (tool === 'record_memories')
        return modelWorks
          ? openAiCompletion('', [
              {
                id: 'call-1',
                name: tool,
                arguments: JSON.stringify({
                  memories: [
                    {
                      text: 'The user likes tea',
                      kind: 'fact',
                      messageIds: [userMessageId(request)],
                    },
                  ],
                }),
              },
            ])
          : openAiCompletion('I would rather chat.');
      if (tool === 'choose_operations')
        return openAiCompletion('', [
          {
            id: 'call-2',
            name: tool,
            arguments: JSON.stringify({ choices: [{ candidate: 0, op: 'ADD' }] }),
          },
        ]);
      return openAiAnswer('Noted.')(request);
    };
    const turn = await api(web.app().url, KEY, '/conversations/failing/turns', {
      method: 'POST',
      body: { message: 'I like tea.', entityId: 'me' },
    });
    expect(turn.status).toBe(201);
    // Three attempts, 1 s and 4 s apart, then the job is noted as failed.
    for (let i = 0; i < 300; i += 1) {
      const listed = await api(web.app().url, KEY, '/entities/me/formation-failures');
      if ((listed.body as { failures: unknown[] }).failures.length > 0) break;
      await sleep(50);
    }
  }, 60_000);

  it('lists the failure with its error, and forms the memory when run again', async () => {
    const page = await web.open();
    await openWithKey(page, web.app().url, KEY, '/inspector');
    const failures = page.getByTestId('formation-failures');
    await failures.waitFor();
    const row = failures.getByTestId('formation-failure');
    expect(await row.count()).toBe(1);
    const text = await row.innerText();
    expect(text).toContain('no call of record_memories');
    expect(text).toContain('failing · 3 attempts');
    await shot(page, 'formation-failures', true);

    // Still failing: kept, one attempt more.
    await row.getByTestId('formation-rerun').click();
    await page.getByTestId('formation-rerun-outcome').getByText('Failed again').waitFor();
    await row.getByText('failing · 4 attempts').waitFor();

    modelWorks = true;
    await row.getByTestId('formation-rerun').click();
    await page.getByTestId('formation-rerun-outcome').getByText('Formed: 1 change(s).').waitFor();
    await page.getByTestId('formed-memories').getByText('The user likes tea').waitFor();
    await row.waitFor({ state: 'detached' });
    expect(await row.count()).toBe(0);
  }, 60_000);
});
