import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { platformLayouts, appPerSuite } from '../support/app-harness.js';
import { keepAlive, rawRequest } from './raw-http.js';

const KEYS = {
  acme: 'key-of-acme-0000001',
  // A tenant whose id extends the victim's: the stored ids must not overlap.
  'acme-x': 'key-of-acmex-000001',
  other: 'key-of-other-000001',
} as const;

/**
 * Another tenant's guessed and crafted ids and keys, on every backend: never a byte of the
 * victim's conversations, runs, steps, long-term records or working memory, and nothing of it
 * changed.
 */
describe.each(platformLayouts())('tenant isolation on %s', (_name, env) => {
  const running = appPerSuite(
    () => ({
      ...env(),
      RATE_LIMIT_MAX: '0',
      API_KEYS: Object.entries(KEYS)
        .map(([tenant, key]) => `${tenant}:${key}`)
        .join(','),
    }),
    { beforeAll, afterAll },
  );
  afterAll(() => keepAlive.destroy());
  const as = (tenant: keyof typeof KEYS, method: string, path: string, body?: object) =>
    rawRequest(running().url, method, path, body === undefined ? undefined : JSON.stringify(body), {
      authorization: `Bearer ${KEYS[tenant]}`,
    });

  it('keeps every resource to its tenant, whatever ids the others guess or craft', async () => {
    const c = `c-${randomUUID().slice(0, 8)}`;
    const e = `e-${randomUUID().slice(0, 8)}`;
    const turn = await as('acme', 'POST', `/conversations/${c}/turns`, {
      message: 'my secret plan',
      entityId: e,
    });
    expect(turn.status).toBe(201);
    const runId = (turn.json as { runId: string }).runId;
    expect(
      (await as('acme', 'PUT', `/entities/${e}/memories/plan`, { value: 'secret', seq: 1 })).status,
    ).toBe(200);
    expect(
      (await as('acme', 'PUT', `/conversations/${c}/working-memory/w`, { value: 'secret' })).status,
    ).toBe(204);

    for (const intruder of ['other', 'acme-x'] as const) {
      // The same ids: the intruder's own, empty namespace.
      const messages = await as(intruder, 'GET', `/conversations/${c}/messages`);
      expect(messages.json).toMatchObject({ version: 0, messages: [] });
      expect((await as(intruder, 'GET', `/entities/${e}/memories/plan`)).status).toBe(404);
      expect((await as(intruder, 'GET', `/entities/${e}/memories?prefix=`)).json).toEqual({
        records: [],
      });
      expect((await as(intruder, 'GET', `/conversations/${c}/working-memory/w`)).status).toBe(404);
      expect((await as(intruder, 'GET', `/runs/${runId}`)).status).toBe(404);
      expect((await as(intruder, 'GET', `/runs/${runId}/steps`)).status).toBe(404);
      expect((await as(intruder, 'GET', `/conversations/${c}/runs`)).json).toEqual({ runs: [] });
      const listed = (await as(intruder, 'GET', '/conversations?limit=100')).json as {
        conversations: Array<{ conversationId: string }>;
      };
      expect(listed.conversations.map((entry) => entry.conversationId)).not.toContain(c);
      // Crafted ids that spell the victim's stored ids: refused before any store is reached.
      for (const crafted of [
        `acme%2F${c}`,
        `..%2Facme%2F${c}`,
        `acme%2f${c}`,
        `%2E%2E%2Facme%2F${c}`,
      ]) {
        expect((await as(intruder, 'GET', `/conversations/${crafted}/messages`)).status).toBe(400);
        expect((await as(intruder, 'DELETE', `/conversations/${crafted}`)).status).toBe(400);
      }
      for (const crafted of [`acme%2F${e}`, `..%2Facme%2F${e}`]) {
        expect((await as(intruder, 'GET', `/entities/${crafted}/memories/plan`)).status).toBe(400);
        expect(
          (await as(intruder, 'PUT', `/entities/${crafted}/memories/plan`, { value: 'x', seq: 9 }))
            .status,
        ).toBe(400);
      }
      // Writes and deletes under the same ids touch only the intruder's own namespace.
      expect(
        (await as(intruder, 'PUT', `/entities/${e}/memories/plan`, { value: 'overwrite', seq: 99 }))
          .status,
      ).toBe(200);
      expect((await as(intruder, 'DELETE', `/conversations/${c}`)).status).toBe(204);
    }

    const mine = await as('acme', 'GET', `/conversations/${c}/messages`);
    expect((mine.json as { version: number }).version).toBe(2);
    expect(mine.text).toContain('my secret plan');
    expect((await as('acme', 'GET', `/entities/${e}/memories/plan`)).json).toMatchObject({
      value: 'secret',
      seq: 1,
    });
    expect((await as('acme', 'GET', `/conversations/${c}/working-memory/w`)).json).toMatchObject({
      value: 'secret',
    });
    expect((await as('acme', 'GET', `/runs/${runId}/steps`)).status).toBe(200);
  }, 60_000);
});
