import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { appPerSuite, embeddedEnv } from '../support/app-harness.js';

const KEY_A = 'key-of-tenant-a-0001';
const KEY_B = 'key-of-tenant-b-0001';
const A = { Authorization: `Bearer ${KEY_A}` };
const B = { Authorization: `Bearer ${KEY_B}` };
const MERGE_PATCH = 'application/merge-patch+json';

/**
 * The example app's entity profile over HTTP, on its embedded default (SQLite, the offline model,
 * the demo's formation and profile): filled by what the user says, changed by merge patches (each a
 * version, checked against the schema), read with its history, and kept apart per tenant.
 */
describe('the entity profile over HTTP (embedded default)', () => {
  const running = appPerSuite(() => ({ ...embeddedEnv(), API_KEYS: `ta:${KEY_A},tb:${KEY_B}` }), {
    beforeAll,
    afterAll,
  });
  const http = () => request(running().url);
  const profileOf = async (entity: string, auth = A) =>
    http().get(`/entities/${entity}/profile`).set(auth);

  // Every test starts from the profile a turn formed (they may run in any order).
  let formed: Record<string, unknown> = {};
  beforeAll(async () => {
    await http()
      .post('/conversations/profile-1/turns')
      .set(A)
      .send({ message: 'My name is Ada. I work at Acme.', entityId: 'ada' })
      .expect(201);
    for (let i = 0; i < 300 && formed['version'] === undefined; i += 1) {
      const answer = await profileOf('ada');
      if (answer.status === 200) formed = answer.body as Record<string, unknown>;
      else await sleep(50);
    }
  }, 30_000);

  it('fills the profile from a turn, and a merge patch changes only what it names', async () => {
    expect(formed).toEqual({
      document: { name: 'Ada', employer: 'Acme' },
      version: 1,
      updatedAt: expect.any(Number),
      origin: 'formation',
      runId: expect.any(String),
    });

    const patched = await http()
      .patch('/entities/ada/profile')
      .set(A)
      .set('Content-Type', MERGE_PATCH)
      .send(JSON.stringify({ city: 'Oslo', employer: null }))
      .expect(200);
    expect(patched.body).toEqual({
      document: { name: 'Ada', city: 'Oslo' },
      version: 2,
      updatedAt: expect.any(Number),
      origin: 'edit',
    });
    const history = await http().get('/entities/ada/profile/history?limit=1').set(A).expect(200);
    expect(history.body).toEqual({
      versions: [expect.objectContaining({ version: 1, patch: { name: 'Ada', employer: 'Acme' } })],
      cursor: '1',
    });
    const next = await http().get('/entities/ada/profile/history?cursor=1').set(A).expect(200);
    expect(next.body.versions.map((v: { patch: unknown }) => v.patch)).toEqual([
      { city: 'Oslo', employer: null },
    ]);
  });

  it('lists the written formation jobs of a conversation: operations, model, the profile patch', async () => {
    const jobs = async (query: string, auth = A) =>
      (await http().get(`/entities/ada/formation-jobs${query}`).set(auth).expect(200)).body as {
        jobs: Array<Record<string, unknown>>;
        cursor?: string;
      };
    const { jobs: listed } = await jobs('?conversationId=profile-1');
    expect(listed).toEqual([
      expect.objectContaining({
        conversationId: 'profile-1',
        model: 'plain-statements',
        operations: [
          expect.objectContaining({ op: 'ADD' }),
          expect.objectContaining({ op: 'ADD' }),
        ],
        profile: { status: 'applied', members: ['name', 'employer'], version: 1 },
      }),
    ]);
    expect((await jobs('?conversationId=another')).jobs).toEqual([]);
    // Tenant b's "ada" is another entity; a page of one gives a cursor.
    expect((await jobs('', B)).jobs).toEqual([]);
    const first = await jobs('?limit=1');
    expect(first.cursor).toBe(listed[0]!['jobId']);
    await http().get('/entities/ada/formation-jobs?cursor=nope').set(A).expect(400);
  });

  it('refuses a patch that breaks the schema or is not an object, and changes nothing', async () => {
    const { version } = (await profileOf('ada')).body as { version: number };
    for (const [body, type, status, message] of [
      [{ name: 42 }, MERGE_PATCH, 422, /\/name must be string/],
      [
        { shoeSize: 42 },
        MERGE_PATCH,
        422,
        /must NOT have additional properties \("shoeSize" is not in the schema\)/,
      ],
      [['name'], 'application/json', 400, /a profile patch is a JSON object/],
      [{ name: 'Eve' }, 'text/plain', 415, /./],
    ] as const) {
      const answer = await http()
        .patch('/entities/ada/profile')
        .set(A)
        .set('Content-Type', type)
        .send(typeof body === 'string' ? body : JSON.stringify(body));
      expect(answer.status).toBe(status);
      expect(answer.body.message).toMatch(message);
    }
    expect((await profileOf('ada')).body.version).toBe(version);
  });

  it('takes a member back when the user asks to forget what set it', async () => {
    const turn = (message: string) =>
      http()
        .post('/conversations/profile-forget/turns')
        .set(A)
        .send({ message, entityId: 'cleo' })
        .expect(201);
    const versionReached = async (version: number) => {
      for (let i = 0; i < 300; i += 1) {
        const answer = await profileOf('cleo');
        if (answer.status === 200 && answer.body.version >= version) return answer.body.document;
        await sleep(50);
      }
      throw new Error(`the profile of cleo never reached version ${version}`);
    };
    await turn('I live in Lyon.');
    expect(await versionReached(1)).toEqual({ city: 'Lyon' });
    await turn('Forget that I live in Lyon.');
    expect(await versionReached(2)).toEqual({});
  }, 40_000);

  it('keeps each tenant’s profiles apart', async () => {
    const tenantA = (await profileOf('ada')).body.document as unknown;
    // Tenant b's entity "ada" is another entity: it has no profile.
    expect((await profileOf('ada', B)).status).toBe(404);
    await http()
      .patch('/entities/ada/profile')
      .set(B)
      .set('Content-Type', MERGE_PATCH)
      .send(JSON.stringify({ name: 'Bea' }))
      .expect(200);
    expect((await profileOf('ada')).body.document).toEqual(tenantA);
    expect((await profileOf('ada', B)).body.document).toEqual({ name: 'Bea' });
  });
});
