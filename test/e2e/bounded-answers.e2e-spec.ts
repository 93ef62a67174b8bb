import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type RunningApp, bootApp, embeddedEnv, serverEnv } from '../support/app-harness.js';
import { fetchWhole } from '../support/fetch-whole.js';

const layouts: Array<[string, () => Record<string, string>]> = [
  ['the embedded default', () => embeddedEnv()],
  ['PostgreSQL + Redis', () => serverEnv()],
];

const MIB = 1024 * 1024;

/**
 * Every answer of the example app is bounded: lists page by default and end at the page byte
 * budget (1 MiB) with a cursor; one value a write stores is at most 256 KiB; a tenant's working
 * memory stays within its quota, whatever another tenant does.
 */
describe.each(layouts)('bounded answers (%s)', (_name, env) => {
  const id = randomUUID().slice(0, 8);
  const keys = { a: `key-a-${id}-00000000`, b: `key-b-${id}-00000000` };
  let app: RunningApp;
  beforeAll(async () => {
    app = await bootApp({
      ...env(),
      API_KEYS: `ta-${id}:${keys.a},tb-${id}:${keys.b}`,
      WORKING_MEMORY_TENANT_MAX_BYTES: '1mb',
      WORKING_MEMORY_TENANT_MAX_CONVERSATIONS: '8',
    });
  });
  afterAll(async () => {
    await app?.close();
  });

  const call = (path: string, init: RequestInit = {}, key = keys.a) =>
    fetchWhole(`${app.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
  const json = async <T>(response: Response): Promise<T> => {
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  };
  type MessagesPage = { version: number; messages: Array<{ id: string }>; before?: number };

  it('answers a history a page at a time: the newest 50 by default, then by cursor', async () => {
    const path = `/conversations/paged-${id}`;
    for (let i = 0; i < 30; i += 1)
      expect(
        (
          await call(`${path}/turns`, {
            method: 'POST',
            body: JSON.stringify({ message: `m${i}` }),
          })
        ).status,
      ).toBe(201);
    const first = await json<MessagesPage>(await call(`${path}/messages`));
    expect(first.version).toBe(60);
    expect(first.messages).toHaveLength(50);
    expect(first.before).toBe(11);
    const rest = await json<MessagesPage>(await call(`${path}/messages?before=${first.before}`));
    expect(rest.messages).toHaveLength(10);
    expect(rest.before).toBeUndefined();
  });

  it('ends a page at the byte budget, with a cursor that reaches every message once', async () => {
    const path = `/conversations/large-${id}`;
    const big = 'y'.repeat(200_000);
    for (let i = 0; i < 6; i += 1)
      await call(`${path}/turns`, { method: 'POST', body: JSON.stringify({ message: big + i }) });
    const seen: string[] = [];
    let query = '?last=1000';
    for (let page = 0; page < 20; page += 1) {
      const response = await call(`${path}/messages${query}`);
      const text = await response.text();
      expect(Buffer.byteLength(text)).toBeLessThan(1.1 * MIB);
      const body = JSON.parse(text) as MessagesPage;
      seen.unshift(...body.messages.map((message) => message.id));
      if (body.before === undefined) break;
      expect(body.messages.length).toBeLessThan(12);
      query = `?before=${body.before}&limit=1000`;
    }
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
  });

  it('pages a memory search by bytes too, and refuses a value over 256 KiB with 413', async () => {
    const path = `/entities/person-${id}/memories`;
    for (let i = 0; i < 6; i += 1)
      expect(
        (
          await call(`${path}/note-${i}`, {
            method: 'PUT',
            body: JSON.stringify({ value: 'z'.repeat(250_000) }),
          })
        ).status,
      ).toBe(200);
    const tooLarge = await call(`${path}/huge`, {
      method: 'PUT',
      body: JSON.stringify({ value: 'z'.repeat(270_000) }),
    });
    expect(tooLarge.status).toBe(413);
    // Named as the one record the route writes, not as a row of a batch the client never sent.
    expect(((await tooLarge.json()) as { message: string }).message).toMatch(
      /^Invalid record\.value: is \d+ bytes of JSON, over the limit/,
    );
    const keysSeen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const response = await call(
        `${path}?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      const text = await response.text();
      expect(Buffer.byteLength(text)).toBeLessThan(1.1 * MIB);
      const body = JSON.parse(text) as { records: Array<{ key: string }>; cursor?: string };
      keysSeen.push(...body.records.map((record) => record.key));
      cursor = body.cursor;
      if (!cursor) break;
    }
    expect(keysSeen).toEqual(Array.from({ length: 6 }, (_, i) => `note-${i}`));
    expect((await call(`${path}?cursor=%00`)).status).toBe(400);
    // A cursor of another prefix's page.
    const otherPrefix = await call(
      `${path}?prefix=zz&cursor=${Buffer.from('note-1').toString('base64url')}`,
    );
    expect(otherPrefix.status).toBe(400);
    expect(((await otherPrefix.json()) as { message: string }).message).toContain('cursor');
  });

  it('holds a tenant to its working-memory quota (507) while another tenant writes on', async () => {
    const put = (conversation: string, key: string, bytes: number, as = keys.a) =>
      call(
        `/conversations/${conversation}/working-memory/${key}`,
        { method: 'PUT', body: JSON.stringify({ value: 'w'.repeat(bytes) }) },
        as,
      );
    expect((await put(`wm-${id}`, 'huge', 300_000)).status).toBe(413);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await put(`wm-${id}-${i}`, 'k', 200_000)).status);
    expect(statuses.slice(0, 5)).toEqual([204, 204, 204, 204, 204]);
    expect(statuses.slice(5)).toEqual([507, 507, 507]);
    expect((await put(`wm-${id}-b`, 'k', 200_000, keys.b)).status).toBe(204);
    // Deleting a conversation frees its share.
    expect((await call(`/conversations/wm-${id}-0`, { method: 'DELETE' })).status).toBe(204);
    expect((await put(`wm-${id}-8`, 'k', 200_000)).status).toBe(204);
  });

  it('pages a conversation’s runs newest first', async () => {
    // A conversation of its own: the tests hold in any order.
    for (let i = 0; i < 30; i += 1)
      expect(
        (
          await call(`/conversations/runs-${id}/turns`, {
            method: 'POST',
            body: JSON.stringify({ message: `r${i}` }),
          })
        ).status,
      ).toBe(201);
    const path = `/conversations/runs-${id}/runs`;
    const first = await json<{ runs: Array<{ runId: string }>; cursor?: string }>(
      await call(`${path}?limit=20`),
    );
    expect(first.runs).toHaveLength(20);
    const rest = await json<{ runs: Array<{ runId: string }>; cursor?: string }>(
      await call(`${path}?limit=20&cursor=${first.cursor!}`),
    );
    expect(rest.runs).toHaveLength(10);
    expect(rest.cursor).toBeUndefined();
    expect(new Set([...first.runs, ...rest.runs].map((run) => run.runId)).size).toBe(30);
  });
});
