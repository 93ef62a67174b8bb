import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { EntityProfiles } from '../../src/modules/formation/profile/entity-profiles.js';
import { ProfileSchema } from '../../src/modules/formation/profile/profile-schema.js';
import type { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { FORMATION_BACKENDS, formationTier } from './formation-backends.js';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 50 },
    city: { type: 'string' },
    pets: { type: 'array', items: { type: 'string' } },
    address: { type: 'object', properties: { street: { type: 'string' } } },
  },
};
const T0 = Date.UTC(2026, 5, 1);

describe.each(FORMATION_BACKENDS)('entity profiles on %s', (_name, uri) => {
  const tier = formationTier(uri);
  let longterm: LongtermMemoryService;
  let profiles: EntityProfiles;
  beforeAll(() => {
    ({ longterm } = tier());
    profiles = new EntityProfiles(longterm, new ProfileSchema({ schema: SCHEMA, maxBytes: 512 }));
  });
  const entity = () => `ada-${randomUUID().slice(0, 8)}`;
  /** A seq of the entity's formed memories, as formation jobs and edits take them. */
  const formedSeq = (entityId: string) => new FormedMemories(longterm).nextSeq(entityId);
  /** A patch at a fresh seq of the entity, as an edit. */
  const edit = async (entityId: string, patch: unknown, at = T0) =>
    profiles.apply(entityId, patch, { seq: await formedSeq(entityId), at }, { origin: 'edit' });

  it('keeps every member a patch does not name, one version per change, each readable', async () => {
    const id = entity();
    expect(await profiles.get(id)).toBeUndefined();
    await edit(id, { name: 'Ada', pets: ['Kiwi'], address: { street: 'Via Roma 1' } });
    const second = await edit(id, { city: 'Rome', pets: ['Kiwi', 'Biscuit'] }, T0 + 1);
    expect(second).toEqual({
      status: 'applied',
      profile: {
        document: {
          name: 'Ada',
          city: 'Rome',
          pets: ['Kiwi', 'Biscuit'],
          address: { street: 'Via Roma 1' },
        },
        version: 2,
        updatedAt: T0 + 1,
        origin: 'edit',
      },
    });
    // null removes a member; nested objects merge.
    await edit(id, { address: { street: null }, city: null }, T0 + 2);
    expect((await profiles.get(id))?.document).toEqual({
      name: 'Ada',
      pets: ['Kiwi', 'Biscuit'],
      address: {},
    });
    // A patch that changes nothing makes no version.
    expect((await edit(id, { name: 'Ada' })).status).toBe('unchanged');
    const history = await profiles.history(id, 10);
    expect(history.map(({ version, patch }) => [version, patch])).toEqual([
      [1, { name: 'Ada', pets: ['Kiwi'], address: { street: 'Via Roma 1' } }],
      [2, { city: 'Rome', pets: ['Kiwi', 'Biscuit'] }],
      [3, { address: { street: null }, city: null }],
    ]);
    expect((await profiles.history(id, 2, 1)).map(({ version }) => version)).toEqual([2, 3]);
  });

  it('refuses a patch that breaks the schema or the size, or is not an object, and keeps the profile', async () => {
    const id = entity();
    await edit(id, { name: 'Ada' });
    for (const [patch, reason] of [
      [{ name: 42 }, /\/name must be string/],
      [
        { nickname: 'A' },
        /must NOT have additional properties \("nickname" is not in the schema\)/,
      ],
      [{ name: 'x'.repeat(51) }, /\/name must NOT have more than 50 characters/],
      [{ pets: Array.from({ length: 60 }, (_, i) => `pet ${i}`) }, /more than .*maxBytes \(512\)/],
      [['name'], /a profile patch is a JSON object/],
      ['Ada', /a profile patch is a JSON object/],
    ] as const) {
      const outcome = await edit(id, patch);
      expect(outcome.status).toBe('refused');
      expect(outcome.status === 'refused' && outcome.reason).toMatch(reason);
    }
    expect(await profiles.get(id)).toEqual(expect.objectContaining({ version: 1 }));
    expect(await profiles.history(id, 10)).toHaveLength(1);
  });

  it('applies a job’s patch once — also when the job is run again later — and refuses it after a later change', async () => {
    const id = entity();
    const seq = await formedSeq(id);
    const job = { origin: 'formation' as const, runId: 'run-1', jobId: 'run-1/formation-v1' };
    const first = await profiles.apply(id, { name: 'Ada' }, { seq, at: T0 }, job);
    expect(first.status).toBe('applied');
    // A retry of the same job finds its note and writes nothing.
    expect(await profiles.apply(id, { name: 'Ada' }, { seq, at: T0 }, job)).toEqual(first);
    await edit(id, { name: 'Eve', city: 'Rome' });
    // Run again later (at a fresh seq, as a re-run of a failed job is): still applied once.
    const rerun = await profiles.apply(
      id,
      { name: 'Ada' },
      { seq: await formedSeq(id), at: T0 },
      job,
    );
    expect(rerun.status).toBe('applied');
    expect((await profiles.get(id))?.document).toEqual({ name: 'Eve', city: 'Rome' });
    expect(await profiles.history(id, 10)).toHaveLength(2);
    // Another job that took its seq before the edit no longer writes.
    const late = { origin: 'formation' as const, runId: 'run-2', jobId: 'run-2/formation-v1' };
    expect(await profiles.apply(id, { city: 'Oslo' }, { seq, at: T0 }, late)).toEqual({
      status: 'refused',
      reason: 'the profile changed after this job began (an edit or a later job)',
    });
  });

  it('refuses a patch larger than maxBytes, and makes no version of an empty one', async () => {
    const id = entity();
    const big = { name: 'x'.repeat(600) };
    const outcome = await edit(id, big);
    expect(outcome.status === 'refused' && outcome.reason).toMatch(/^the patch takes \d+ bytes/);
    expect(await edit(id, {})).toEqual({ status: 'unchanged', profile: undefined });
    expect(await edit(id, { city: null })).toEqual({ status: 'unchanged', profile: undefined });
    expect(await profiles.history(id, 10)).toEqual([]);
  });

  it('goes with the entity’s erasure, and a job begun before it writes nothing', async () => {
    const id = entity();
    const seq = await formedSeq(id);
    await edit(id, { name: 'Ada' });
    await longterm.deleteEntity(id);
    expect(await profiles.get(id)).toBeUndefined();
    expect(await profiles.history(id, 10)).toEqual([]);
    const late = await profiles.apply(
      id,
      { name: 'Ada' },
      { seq, at: T0 },
      { origin: 'formation', runId: 'run-2' },
    );
    expect(late.status).toBe('refused');
    expect(await profiles.get(id)).toBeUndefined();
  });
});

describe('a profile schema', () => {
  it('takes what zod 4 writes (draft 2020-12), members optional', () => {
    const Profile = z.object({ name: z.string(), tags: z.array(z.string()) }).partial();
    const schema = new ProfileSchema({
      schema: z.toJSONSchema(Profile) as Record<string, unknown>,
    });
    expect(schema.check({ name: 'Ada' })).toBeUndefined();
    expect(schema.check({ tags: 'a' })).toMatch(/\/tags must be array/);
  });

  it('names the member a 2020-12 schema has no room for (unevaluatedProperties)', () => {
    const schema = new ProfileSchema({
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { name: { type: 'string' } },
        unevaluatedProperties: false,
      },
    });
    expect(schema.check({ name: 'Ada' })).toBeUndefined();
    expect(schema.check({ name: 'Ada', age: 3 })).toMatch(
      /^the profile would not fit its schema: \(the profile\) must NOT have unevaluated properties \("age" is not in the schema\)$/,
    );
  });

  it('is refused at start when it is not an object schema Ajv compiles', () => {
    expect(() => new ProfileSchema({ schema: { type: 'string' } })).toThrow(
      InvalidModuleOptionsError,
    );
    expect(() => new ProfileSchema({ schema: { type: 'object', properties: 5 } })).toThrow(
      /formation\.profile\.schema.*is not a JSON Schema Ajv can compile/,
    );
  });
});
