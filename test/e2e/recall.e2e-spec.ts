import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { appPerSuite, STORAGE_LAYOUTS } from '../support/app-harness.js';
import { tempDir } from '../support/test-databases.js';

const A = { Authorization: 'Bearer key-of-tenant-a-0001' };
const B = { Authorization: 'Bearer key-of-tenant-b-0001' };

/** `GET /entities/:entityId/recall` on the built app, on every storage layout, two tenants. */
describe.each(STORAGE_LAYOUTS)('recall over HTTP on %s', (_label, layout) => {
  const running = appPerSuite(
    () => ({
      ...layout(),
      API_KEYS: 'tenantA:key-of-tenant-a-0001,tenantB:key-of-tenant-b-0001',
      AGENT_RECALL_MESSAGES: 'true',
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);
  const entity = `recall-${randomUUID()}`;
  const put = (key: string, value: unknown) =>
    http()
      .put(`/entities/${entity}/memories/${encodeURIComponent(key)}`)
      .set(A)
      .send({ value })
      .expect(200);
  const recall = (query: string) => http().get(`/entities/${entity}/recall?${query}`).set(A);

  beforeAll(async () => {
    await put('profile/job', 'Caroline works as a counselor at a youth center');
    await put('profile/city', { city: 'Lisbon', note: 'She moved to Lisbon in 2023' });
    await put('diary/1', 'Went hiking with Melanie; Caroline stayed home');
    for (let i = 0; i < 12; i += 1)
      await put(`bulk/${String(i).padStart(2, '0')}`, `filler line ${i}`);
  });

  it('answers the best-matching records first, each with its key, record and scores', async () => {
    const { body } = await recall(`q=${encodeURIComponent('Is CAROLINE a counselor?')}`).expect(
      200,
    );
    expect(body.hits[0]).toEqual({
      source: 'record',
      key: 'profile/job',
      record: {
        entityId: entity,
        key: 'profile/job',
        value: 'Caroline works as a counselor at a youth center',
        seq: expect.any(Number),
        updatedAt: expect.any(Number),
      },
      score: expect.any(Number),
      lexical: { rank: 1, score: expect.any(Number) },
    });
    expect(body.hits.map((hit: { key: string }) => hit.key).sort()).toEqual([
      'diary/1',
      'profile/job',
    ]);
    expect(body.cursor).toBeUndefined();
    const lisbon = (await recall('q=lisbon').expect(200)).body;
    expect(lisbon.hits.map((hit: { key: string }) => hit.key)).toEqual(['profile/city']);
    const filtered = (await recall(`q=caroline&prefix=${encodeURIComponent('diary/')}`).expect(200))
      .body;
    expect(filtered.hits.map((hit: { key: string }) => hit.key)).toEqual(['diary/1']);
  });

  it('pages with a cursor, and never shows another tenant anything', async () => {
    const first = (await recall('q=filler&k=5').expect(200)).body;
    expect(first.hits).toHaveLength(5);
    const second = (await recall(`q=filler&k=5&cursor=${first.cursor}`).expect(200)).body;
    const third = (await recall(`q=filler&k=5&cursor=${second.cursor}`).expect(200)).body;
    const keys = [...first.hits, ...second.hits, ...third.hits].map(
      (hit: { key: string }) => hit.key,
    );
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    expect(third.cursor).toBeUndefined();
    const other = await http().get(`/entities/${entity}/recall?q=caroline`).set(B).expect(200);
    expect(other.body).toEqual({ hits: [] });
  });

  it('forgets a deleted record at once', async () => {
    await put('temp/x', 'a quokka smiled');
    const found = (await recall('q=quokka').expect(200)).body.hits;
    expect(found.map((hit: { key: string }) => hit.key)).toEqual(['temp/x']);
    await http()
      .delete(
        `/entities/${entity}/memories/${encodeURIComponent('temp/x')}?seq=${found[0].record.seq}`,
      )
      .set(A)
      .expect(200, { applied: true });
    expect((await recall('q=quokka').expect(200)).body).toEqual({ hits: [] });
  });

  it('recalls what the entity said in its conversations, each hit naming where, until the conversation is deleted', async () => {
    const [trip, work] = [`trip-${randomUUID()}`, `work-${randomUUID()}`];
    for (const [conversationId, message] of [
      [trip, 'We saw the puffins at Látrabjarg'],
      [work, 'The puffin report is due Friday'],
    ])
      await http()
        .post(`/conversations/${conversationId}/turns`)
        .set(A)
        .send({ message, entityId: entity })
        .expect(201);
    const { body } = await recall('q=PUFFINS%20latrabjarg&scope=messages').expect(200);
    expect(body.hits[0]).toEqual({
      source: 'message',
      message: {
        conversationId: trip,
        position: 1,
        messageId: expect.stringMatching(/:0$/),
        role: 'user',
        text: 'We saw the puffins at Látrabjarg',
        at: expect.any(Number),
      },
      score: expect.any(Number),
      lexical: { rank: 1, score: expect.any(Number) },
    });
    // The echo model's reply is indexed too, as the assistant's.
    expect(body.hits.map((hit: { message: { role: string } }) => hit.message.role)).toContain(
      'assistant',
    );
    const inWork = (
      await recall(`q=puffins%20puffin&scope=messages&conversationId=${work}`).expect(200)
    ).body;
    expect(
      new Set(
        inWork.hits.map(
          (hit: { message: { conversationId: string } }) => hit.message.conversationId,
        ),
      ),
    ).toEqual(new Set([work]));
    const all = (await recall('q=puffins%20caroline&scope=all&k=20').expect(200)).body;
    expect(new Set(all.hits.map((hit: { source: string }) => hit.source))).toEqual(
      new Set(['record', 'message']),
    );
    expect(
      (await http().get(`/entities/${entity}/recall?q=puffins&scope=messages`).set(B).expect(200))
        .body,
    ).toEqual({ hits: [] });
    await http().delete(`/conversations/${trip}`).set(A).expect(204);
    const left = (await recall('q=puffins%20puffin&scope=messages').expect(200)).body;
    expect(
      new Set(
        left.hits.map((hit: { message: { conversationId: string } }) => hit.message.conversationId),
      ),
    ).toEqual(new Set([work]));
  });

  it('refuses a bad query with a 400 that names it', async () => {
    for (const [query, named] of [
      ['', 'q'],
      ['q=%3F%21', 'query'],
      [`q=${'x'.repeat(2_001)}`, 'q'],
      ['q=ok&k=0', 'k'],
      ['q=ok&k=101', 'k'],
      ['q=ok&scope=threads', 'scope'],
      ['q=ok&conversationId=c1', 'conversationId'],
      ['q=ok&scope=messages&prefix=a', 'prefix'],
      ['q=ok&scope=messages&conversationId=a%2Fb', 'conversationId'],
      ['q=ok&cursor=abc', 'cursor'],
      ['q=ok&cursor=100', 'cursor'],
    ] as const) {
      const response = await recall(query);
      expect([query, response.status]).toEqual([query, 400]);
      expect(JSON.stringify(response.body.message)).toContain(named);
    }
    // Without q, the answer says it is required (not that it is too long).
    expect((await recall('k=5').expect(400)).body.message).toBe(
      'q is required: the words to recall by',
    );
  });
});

/** The example app with the offline embedder and agent recall on (embedded default). */
describe('recall over HTTP with RECALL_EMBEDDER=hashing and AGENT_RECALL=true', () => {
  const running = appPerSuite(
    () => ({ ...STORAGE_LAYOUTS[0]![1](), RECALL_EMBEDDER: 'hashing', AGENT_RECALL: 'true' }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);

  it('fuses both lists, each hit saying where it ranked; mode picks one', async () => {
    const entity = `hybrid-${randomUUID()}`;
    for (const [key, value] of [
      ['pets', 'Melanie has two cats named Oliver and Bailey'],
      ['paint', 'Melanie painted a sunrise over the lake'],
    ])
      await http().put(`/entities/${entity}/memories/${key}`).send({ value }).expect(200);
    // The PUT route embeds as it saves: both lists find the record at once.
    const { body } = await http().get(`/entities/${entity}/recall?q=cats`).expect(200);
    expect(body.hits[0]).toMatchObject({
      key: 'pets',
      lexical: { rank: 1, score: expect.any(Number) },
      vector: { rank: 1, score: expect.any(Number) },
    });
    // "painting" is in no record: only the vector list (word pieces) finds the painter.
    const painting = (
      await http().get(`/entities/${entity}/recall?q=painting&mode=vector`).expect(200)
    ).body;
    expect(painting.hits[0]).toMatchObject({ key: 'paint', vector: { rank: 1 } });
    const lexical = (await http().get(`/entities/${entity}/recall?q=cats&mode=lexical`).expect(200))
      .body;
    expect(lexical.hits.every((hit: { vector?: object }) => hit.vector === undefined)).toBe(true);
  });

  it('answers a turn with an entity (the echo model), recall on', async () => {
    const entity = `hybrid-${randomUUID()}`;
    await http().put(`/entities/${entity}/memories/pets`).send({ value: 'two cats' }).expect(200);
    const turn = await http()
      .post(`/conversations/c-${randomUUID()}/turns`)
      .send({ message: 'my cats?', entityId: entity })
      .expect(201);
    expect(turn.body.reply).toBeDefined();
  });
});

/** The example app with RECALL_RERANK=word-vectors over a small file in the package's format. */
describe('recall over HTTP with RECALL_RERANK=word-vectors', () => {
  const vectors = join(tempDir('word-vectors-'), 'vectors.json');
  const words = { job: [1, 0.1, 0, 1, 0], works: [0.9, 0.2, 0, 1, 1], kitchen: [0, 0.1, 1, 1, 2] };
  writeFileSync(
    vectors,
    JSON.stringify({ dimensions: 3, words: Object.keys(words), vectors: words }),
  );
  const running = appPerSuite(
    () => ({
      ...STORAGE_LAYOUTS[0]![1](),
      RECALL_RERANK: 'word-vectors',
      RECALL_WORD_VECTORS_FILE: vectors,
    }),
    { beforeAll, afterAll },
  );
  const http = () => request(running().url);

  it('reranks by meaning: a question about a job finds the record about work first', async () => {
    const entity = `rerank-${randomUUID()}`;
    for (const [key, value] of [
      ['kitchen', 'Ada painted the kitchen'],
      ['work', 'Ada works at the aquarium'],
    ])
      await http().put(`/entities/${entity}/memories/${key}`).send({ value }).expect(200);
    const q = encodeURIComponent("What is Ada's job?");
    const { body } = await http().get(`/entities/${entity}/recall?q=${q}`).expect(200);
    expect(body.hits.map((hit: { key: string }) => hit.key)).toEqual(['work', 'kitchen']);
    expect(body.hits[0]).toMatchObject({ rerank: { rank: 1 }, lexical: { rank: 2 } });
  });
});
