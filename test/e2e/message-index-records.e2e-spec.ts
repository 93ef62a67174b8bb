import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { appPerSuite, STORAGE_LAYOUTS } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion } from '../support/fake-llm-server.js';
import { waitFor } from '../support/wait-for.js';

const KEY = 'key-of-tenant-b-0001';
const AUTH = { Authorization: `Bearer ${KEY}` };
/** How long the model takes to answer a turn: time enough for a delete in between. */
const SLOW_MS = 1_500;

const llm = new FakeLlmServer();
let llmUrl = '';
beforeAll(async () => {
  llmUrl = await llm.start();
  llm.fallback = () => ({ ...openAiCompletion('Noted.'), delayMs: SLOW_MS });
});
afterAll(async () => {
  await llm.stop();
});

/**
 * With `AGENT_RECALL_MESSAGES=true`, indexing a turn's messages touches nothing of the entity's own
 * records, and the conversation's directory entry is written as the turn begins, so deleting the
 * conversation mid-turn fences what the turn indexes afterwards. On every storage layout, tenant
 * `tb` (whose label must never show).
 */
describe.each(STORAGE_LAYOUTS)(
  'the message index and an entity’s records on %s',
  (_label, layout) => {
    const running = appPerSuite(
      () => ({
        ...layout(),
        API_KEYS: `tb:${KEY}`,
        AGENT_RECALL_MESSAGES: 'true',
        OPENAI_BASE_URL: llmUrl,
        LLM_MODEL: 'stub',
        LLM_MAX_RETRIES: '0',
      }),
      { beforeAll, afterAll },
    );
    const http = () => request(running().url);
    const records = async (entity: string) =>
      (await http().get(`/entities/${entity}/memories`).set(AUTH).expect(200)).body
        .records as Array<{
        key: string;
        value: unknown;
      }>;
    const turn = (conversation: string, entity: string, message: string) =>
      http()
        .post(`/conversations/${conversation}/turns`)
        .set(AUTH)
        .send({ message, entityId: entity })
        .expect(201);

    it('leaves the entity’s record list exactly as saved, a record keyed by its own id included', async () => {
      const fresh = `fresh-${randomUUID().slice(0, 8)}`;
      await turn(`c-${randomUUID()}`, fresh, 'I keep bees on the roof');
      expect(await records(fresh)).toEqual([]);
      const owner = `owner-${randomUUID().slice(0, 8)}`;
      await http()
        .put(`/entities/${owner}/memories/${owner}`)
        .set(AUTH)
        .send({ value: 'mine' })
        .expect(200);
      await turn(`c-${randomUUID()}`, owner, 'The hives need checking');
      expect(await records(owner)).toEqual([
        expect.objectContaining({ key: owner, value: 'mine' }),
      ]);
      // The turn's messages are found, by recall over messages only.
      const { body } = await http()
        .get(`/entities/${fresh}/recall?q=bees&scope=messages`)
        .set(AUTH)
        .expect(200);
      expect(body.hits.map((hit: { message: { text: string } }) => hit.message.text)).toContain(
        'I keep bees on the roof',
      );
    });

    it('forgets what a turn indexes after its conversation was deleted mid-turn', async () => {
      const entity = `mid-${randomUUID().slice(0, 8)}`;
      const conversation = `c-${randomUUID()}`;
      const asked = llm.requests.length;
      // A supertest request starts when it is awaited: `then` sends it now.
      const pending = turn(conversation, entity, 'My parrot is called Kiwi').then((done) => done);
      // The turn has begun (its model call is out) before the delete.
      await waitFor(
        async () => llm.requests.length,
        (count) => count > asked,
        10_000,
        'the turn’s model call',
      );
      await http().delete(`/conversations/${conversation}`).set(AUTH).expect(204);
      await pending;
      const { body } = await http()
        .get(`/entities/${entity}/recall?q=parrot%20kiwi&scope=messages`)
        .set(AUTH)
        .expect(200);
      expect(body).toEqual({ hits: [] });
      expect(await records(entity)).toEqual([]);
    });
  },
);
