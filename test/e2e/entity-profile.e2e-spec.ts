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

  it('fills the profile from a turn, and a merge patch changes only what it names', async () => {
    await http()
      .post('/conversations/profile-1/turns')
      .set(A)
      .send({ message: 'My name is Ada. I work at Acme.', entityId: 'ada' })
      .expect(201);
    let body: Record<string, unknown> = {};
    for (let i = 0; i < 300 && body['version'] === undefined; i += 1) {
      const answer = await profileOf('ada');
      if (answer.status === 200) body = answer.body as Record<string, unknown>;
      else await sleep(50);
    }
    expect(body).toEqual({
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

  it('refuses a patch that breaks the schema or is not an object, and changes nothing', async () => {
    for (const [body, type, status, message] of [
      [{ name: 42 }, MERGE_PATCH, 422, /\/name must be string/],
      [{ shoeSize: 42 }, MERGE_PATCH, 422, /must NOT have additional properties/],
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
    expect((await profileOf('ada')).body.version).toBe(2);
  });

  it('keeps each tenant’s profiles apart', async () => {
    // Tenant b's entity "ada" is another entity: it has no profile.
    expect((await profileOf('ada', B)).status).toBe(404);
    await http()
      .patch('/entities/ada/profile')
      .set(B)
      .set('Content-Type', MERGE_PATCH)
      .send(JSON.stringify({ name: 'Bea' }))
      .expect(200);
    expect((await profileOf('ada')).body.document).toEqual({ name: 'Ada', city: 'Oslo' });
    expect((await profileOf('ada', B)).body.document).toEqual({ name: 'Bea' });
  });
});
