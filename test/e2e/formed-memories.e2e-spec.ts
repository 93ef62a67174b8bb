import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { appPerSuite, STORAGE_LAYOUTS } from '../support/app-harness.js';

const A = { Authorization: 'Bearer key-of-tenant-a-0001' };
const B = { Authorization: 'Bearer key-of-tenant-b-0001' };

interface Memory {
  id: string;
  text: string;
  sources: Array<{ conversationId: string; messageIds: string[]; runId: string }>;
  validUntil?: number;
  supersedes?: string;
  supersededBy?: string;
  origin?: string;
}

/**
 * The example app forms memories offline (no model configured: the plain-statements demo model)
 * from turns with an entity, after each turn, and serves them over HTTP per tenant: list (active,
 * all, as of a time), one with its history, correct, retract; on every storage layout, the
 * Bull-queued one included.
 */
describe.each(STORAGE_LAYOUTS)('formed memories over HTTP on %s', (_label, layout) => {
  const running = appPerSuite(
    () => ({
      ...layout(),
      API_KEYS: 'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);
  const say = async (conversationId: string, entityId: string, message: string) =>
    (
      await http()
        .post(`/conversations/${conversationId}/turns`)
        .set(A)
        .send({ message, entityId })
        .expect(201)
    ).body as { runId: string; messages: Array<{ id: string }> };
  /** The entity's active memories once they are `count` (polled, at most 10 s). */
  const activeOnce = async (
    entity: string,
    count: number,
    match: (memory: Memory) => boolean = () => true,
  ) => {
    let memories: Memory[] = [];
    for (let i = 0; i < 200; i += 1) {
      memories = (await http().get(`/entities/${entity}/formed-memories`).set(A).expect(200)).body
        .memories;
      if (memories.length === count && memories.every(match)) break;
      await sleep(50);
    }
    return memories;
  };

  it('forms, supersedes, corrects and retracts, keeping every version with its source', async () => {
    const entity = `fm-${randomUUID().slice(0, 8)}`;
    const conversation = `fmc-${randomUUID().slice(0, 8)}`;
    const first = await say(conversation, entity, 'My name is Ada. I live in Paris.');
    const formed = await activeOnce(entity, 2);
    expect(formed.map((m) => m.text).sort()).toEqual([
      'The user lives in Paris',
      "The user's name is Ada",
    ]);
    expect(formed[0]!.sources).toEqual([
      { conversationId: conversation, messageIds: [first.messages[0]!.id], runId: first.runId },
    ]);
    const paris = formed.find((m) => m.text.includes('Paris'))!;

    await say(conversation, entity, 'Actually I moved to Berlin.');
    const moved = await activeOnce(entity, 2, (m) => !m.text.includes('Paris'));
    const berlin = moved.find((m) => m.text.includes('Berlin'))!;
    expect(berlin).toMatchObject({ text: 'The user lives in Berlin', supersedes: paris.id });
    const one = await http().get(`/entities/${entity}/formed-memories/${berlin.id}`).set(A);
    expect(one.status).toBe(200);
    expect(one.body.history.map((m: Memory) => m.text)).toEqual([
      'The user lives in Paris',
      'The user lives in Berlin',
    ]);
    expect(one.body.history[0].supersededBy).toBe(berlin.id);
    const all = await http().get(`/entities/${entity}/formed-memories?state=all`).set(A);
    expect(all.body.memories).toHaveLength(3);
    // Before the first turn, nothing held.
    const before = new Date(Date.now() - 60_000).toISOString();
    const then = await http().get(`/entities/${entity}/formed-memories?asOf=${before}`).set(A);
    expect(then.body.memories).toEqual([]);

    // A person's correction: a new version; the old one kept, closed.
    const corrected = await http()
      .post(`/entities/${entity}/formed-memories/${berlin.id}/corrections`)
      .set(A)
      .send({ text: 'The user lives in Berlin-Mitte' })
      .expect(200);
    expect(corrected.body).toMatchObject({ supersedes: berlin.id, origin: 'edit' });
    const stale = await http()
      .post(`/entities/${entity}/formed-memories/${berlin.id}/corrections`)
      .set(A)
      .send({ text: 'The user lives in Hamburg' })
      .expect(409);
    expect(stale.body.message).toContain(`its newest version is ${corrected.body.id}`);
    const retracted = await http()
      .post(`/entities/${entity}/formed-memories/${corrected.body.id}/invalidation`)
      .set(A)
      .expect(200);
    // Retracted again (a retried request): the same version, nothing written.
    const again = await http()
      .post(`/entities/${entity}/formed-memories/${corrected.body.id}/invalidation`)
      .set(A)
      .expect(200);
    expect(again.body).toEqual(retracted.body);
    // A retracted memory is not corrected.
    await http()
      .post(`/entities/${entity}/formed-memories/${corrected.body.id}/corrections`)
      .set(A)
      .send({ text: 'The user lives in Potsdam' })
      .expect(409);
    const left = await activeOnce(entity, 1);
    expect(left.map((m) => m.text)).toEqual(["The user's name is Ada"]);
    expect(
      (await http().get(`/entities/${entity}/formed-memories?state=all`).set(A)).body.memories,
    ).toHaveLength(4);
  });

  it('finds the active memories by their words (q), best match first, per tenant', async () => {
    const entity = `fm-${randomUUID().slice(0, 8)}`;
    const conversation = `fmc-${randomUUID().slice(0, 8)}`;
    await say(conversation, entity, 'My name is Ada. I live in Paris.');
    await activeOnce(entity, 2);
    await say(conversation, entity, 'Actually I moved to Lyon.');
    await activeOnce(entity, 2, (m) => !m.text.includes('Paris'));
    const search = async (query: string, headers = A) =>
      (
        (await http().get(`/entities/${entity}/formed-memories?${query}`).set(headers).expect(200))
          .body.memories as Memory[]
      ).map((m) => m.text);

    expect((await search('q=where%20do%20I%20live'))[0]).toBe('The user lives in Lyon');
    expect(await search('q=Lyon')).toEqual(['The user lives in Lyon']);
    expect(await search('q=ada')).toEqual(["The user's name is Ada"]);
    // Both match "user"; the one that matches both words first, whichever way round they come.
    expect(await search('q=user%20lives')).toEqual([
      'The user lives in Lyon',
      "The user's name is Ada",
    ]);
    expect(await search('q=name%20of%20the%20user')).toEqual([
      "The user's name is Ada",
      'The user lives in Lyon',
    ]);
    expect(await search('q=user&limit=1')).toHaveLength(1);
    // The superseded version is history, not an answer.
    expect(await search('q=Paris')).toEqual([]);
    expect(await search('q=Lyon', B)).toEqual([]);
    for (const [query, problem] of [
      ['q=%20%20', 'must hold at least one word'],
      ['q=%3F%21', 'must hold at least one word'],
      ['q=Lyon&limit=300', 'limit must be at most 200 (100 with q)'],
      ['q=Lyon&state=all', 'leave out state'],
      ['q=Lyon&asOf=2026-01-01T00:00:00Z&cursor=x', 'leave out asOf, cursor'],
      ['q=Lyon&limit=101', 'limit must be at most 100 with q'],
      [`q=${'a'.repeat(2_001)}`, 'q must be shorter than or equal to 2000 characters'],
    ] as const) {
      const answer = await http().get(`/entities/${entity}/formed-memories?${query}`).set(A);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body.message)).toContain(problem);
    }
  });

  it('answers bad input with 400 and unknown memories with 404; another tenant sees nothing', async () => {
    const entity = `fm-${randomUUID().slice(0, 8)}`;
    await say(`fmc-${randomUUID().slice(0, 8)}`, entity, 'I like tea.');
    const [tea] = await activeOnce(entity, 1);
    for (const [path, problem] of [
      ['formed-memories?state=old', 'state must be active or all'],
      ['formed-memories?asOf=yesterday', 'asOf must be an ISO 8601'],
      ['formed-memories?limit=0', 'limit'],
      ['formed-memories?cursor=..%2F..', 'cursor'],
    ] as const) {
      const answer = await http().get(`/entities/${entity}/${path}`).set(A).expect(400);
      expect(JSON.stringify(answer.body.message)).toContain(problem);
    }
    await http().get(`/entities/${entity}/formed-memories/nope`).set(A).expect(404);
    // Each bad correction names its own problem (the type before the length).
    for (const [body, problem] of [
      [{ text: '  ' }, 'Invalid text: must hold a word'],
      [{}, 'text must be a string'],
      [{ text: 5 }, 'text must be a string'],
      [{ text: 'a'.repeat(501) }, 'text must be at most 500 characters'],
    ] as const) {
      const answer = await http()
        .post(`/entities/${entity}/formed-memories/${tea!.id}/corrections`)
        .set(A)
        .send(body)
        .expect(400);
      expect(JSON.stringify(answer.body.message)).toContain(problem);
    }
    // A cursor given twice is a list, not a string.
    const twice = await http()
      .get(`/entities/${entity}/formed-memories?cursor=a&cursor=b`)
      .set(A)
      .expect(400);
    expect(JSON.stringify(twice.body.message)).toContain('cursor must be a string');
    // Tenant B: the same entity id is another entity.
    expect(
      (await http().get(`/entities/${entity}/formed-memories`).set(B).expect(200)).body.memories,
    ).toEqual([]);
    await http().get(`/entities/${entity}/formed-memories/${tea!.id}`).set(B).expect(404);
    await http()
      .post(`/entities/${entity}/formed-memories/${tea!.id}/invalidation`)
      .set(B)
      .expect(404);
    expect(
      (await http().get(`/entities/${entity}/formation-failures`).set(A).expect(200)).body,
    ).toEqual({ failures: [] });
  });
});
