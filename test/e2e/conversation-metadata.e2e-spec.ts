import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { STORAGE_LAYOUTS, appPerSuite } from '../support/app-harness.js';

const A = { Authorization: 'Bearer key-of-tenant-a-0001' };
const B = { Authorization: 'Bearer key-of-tenant-b-0001' };

interface Listing {
  conversationId: string;
  title?: string;
  preview?: string;
  metadata?: Record<string, string>;
}

/** Titles, previews and metadata of conversations, over HTTP on the built app (echo model), per storage layout. */
describe.each(STORAGE_LAYOUTS)('conversation titles and metadata on %s', (_label, layout) => {
  const running = appPerSuite(
    () => ({
      ...layout(),
      QUEUE_PREFIX: `e2e-${randomUUID().slice(0, 8)}`,
      API_KEYS: 'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);
  const list = async (query: string, auth = A) =>
    (await http().get(`/conversations${query}`).set(auth).expect(200)).body as {
      conversations: Listing[];
      cursor?: string;
    };
  const turn = (id: string, message: string, auth = A) =>
    http().post(`/conversations/${id}/turns`).set(auth).send({ message }).expect(201);

  /** Three conversations of a test's own (tests run in any order), the newest last: c3, c1, c2. */
  const seed = async () => {
    const run = randomUUID().slice(0, 8);
    const [c1, c2, c3] = ['one', 'two', 'three'].map((name) => `${name}-${run}`) as [
      string,
      string,
      string,
    ];
    await turn(c1, 'Where should we   go\nin May?');
    await turn(c2, 'Budget for the trip');
    await turn(c1, 'And in June?');
    await turn(c3, 'Packing list');
    return { run, c1, c2, c3 };
  };

  it('lists each conversation with its first message as title and its newest as preview', async () => {
    const { c1 } = await seed();
    const { conversations } = await list('?limit=100');
    expect(conversations.find((each) => each.conversationId === c1)).toEqual({
      conversationId: c1,
      lastActiveAt: expect.any(Number),
      title: 'Where should we go in May?',
      preview: 'And in June?',
    });
  });

  it('PATCH renames and tags; the list filters by metadata, paging with the filter', async () => {
    const { run, c1, c2, c3 } = await seed();
    const renamed = await http()
      .patch(`/conversations/${c1}`)
      .set(A)
      .send({ title: 'Summer trip', metadata: { run, team: 'travel' } })
      .expect(200);
    expect(renamed.body).toMatchObject({
      conversationId: c1,
      title: 'Summer trip',
      preview: 'And in June?',
      metadata: { run, team: 'travel' },
    });
    await http().patch(`/conversations/${c2}`).set(A).send({ metadata: { run } }).expect(200);
    await http()
      .patch(`/conversations/${c3}`)
      .set(A)
      .send({ title: null, metadata: { run, team: 'other' } })
      .expect(200);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(
        `?limit=1&metadata[run]=${run}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      seen.push(...page.conversations.map((each) => each.conversationId));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual([c3, c1, c2]);
    const travel = await list(`?metadata[run]=${run}&metadata[team]=travel`);
    expect(travel.conversations.map((each) => each.conversationId)).toEqual([c1]);
    const untitled = (await list(`?metadata[run]=${run}&metadata[team]=other`)).conversations[0]!;
    expect(untitled).not.toHaveProperty('title');
    expect(untitled.preview).toBe('Packing list');
  });

  it('answers 400 for a bad body or filter and 404 for an unknown conversation', async () => {
    const { run, c1 } = await seed();
    for (const body of [{ title: 7 }, { extra: true }, { metadata: { 'no spaces': 'x' } }])
      await http().patch(`/conversations/${c1}`).set(A).send(body).expect(400);
    const badFilter = await http().get('/conversations?metadata[a%20b]=x').set(A).expect(400);
    expect(badFilter.body.message).toContain('a b');
    const missing = await http()
      .patch(`/conversations/never-${run}`)
      .set(A)
      .send({ title: 'x' })
      .expect(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Conversation not found',
    });
  });

  it("keeps tenants apart: another tenant can neither see nor change a conversation's details", async () => {
    const { run, c1 } = await seed();
    await http()
      .patch(`/conversations/${c1}`)
      .set(A)
      .send({ metadata: { run, team: 'travel' } })
      .expect(200);
    await http().patch(`/conversations/${c1}`).set(B).send({ title: 'Mine now' }).expect(404);
    expect((await list(`?metadata[run]=${run}`, B)).conversations).toEqual([]);
    await turn(c1, 'Same id, other tenant', B);
    const [own] = (await list(`?limit=100`, B)).conversations.filter(
      (each) => each.conversationId === c1,
    );
    expect(own).toEqual({
      conversationId: c1,
      lastActiveAt: expect.any(Number),
      title: 'Same id, other tenant',
      preview: 'Same id, other tenant',
    });
    expect((await list(`?metadata[run]=${run}&metadata[team]=travel`)).conversations).toHaveLength(
      1,
    );
  });

  it('DELETE removes the details with the conversation', async () => {
    const { run, c1, c2, c3 } = await seed();
    for (const id of [c1, c2, c3])
      await http().patch(`/conversations/${id}`).set(A).send({ metadata: { run } }).expect(200);
    await http().delete(`/conversations/${c1}`).set(A).expect(204);
    await http().patch(`/conversations/${c1}`).set(A).send({ title: 'x' }).expect(404);
    expect(
      (await list(`?metadata[run]=${run}`)).conversations.map((each) => each.conversationId),
    ).toEqual([c3, c2]);
  });
});
