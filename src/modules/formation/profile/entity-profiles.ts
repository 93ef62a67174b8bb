import { isDeepStrictEqual } from 'node:util';
import type { LongtermMemoryService } from '../../longterm/longterm-memory.service.js';
import { formedEntityOf } from '../../longterm/recall/derived-entities.js';
import { FormedMemories } from '../formed-memories.js';
import { type JsonObject, applyMergePatch, isJsonObject } from './merge-patch.js';
import type { ProfileSchema } from './profile-schema.js';

/** An entity's profile: the document and which version of it this is. */
export interface EntityProfile {
  document: JsonObject;
  /** 1 for the first version; one more per change. */
  version: number;
  /** When this version was made (epoch ms): the turn's time for formation, the edit's for an edit. */
  updatedAt: number;
  /** Who made it: a formation job (of `runId`'s turn) or an edit (HTTP, MCP, the app). */
  origin: 'formation' | 'edit';
  runId?: string;
}

/** One version in a profile's history: the profile as it became, and the patch that made it. */
export interface ProfileVersion extends EntityProfile {
  patch: JsonObject;
}

/** What applying a patch did. */
export type ProfilePatchOutcome =
  | { status: 'applied' | 'unchanged'; profile: EntityProfile | undefined }
  | { status: 'refused'; reason: string };

/** Keys of the profile in the entity's formed-memory entity (which its erasure erases). */
const PROFILE_KEY = 'profile';
const VERSION_PREFIX = 'profile/v/';
const versionKey = (version: number) => `${VERSION_PREFIX}${String(version).padStart(10, '0')}`;
/** The note a formation job's patch leaves, so it is applied once (also by a re-run). */
const jobKey = (jobId: string) => `profile/job/${jobId}`;
/** Most versions one history page reads. */
export const MAX_PROFILE_HISTORY_PAGE = 100;

/**
 * Entity profiles: one JSON document per entity that a schema the app gives keeps in shape, changed
 * only by JSON Merge Patches (RFC 7396) — from formation jobs and edits — each making a new version
 * (kept, readable as history) at a seq of the entity: a job's patch written at the job's seq (a
 * retry of it writes nothing new), an edit at a fresh one. Stored with the entity's formed
 * memories, so erasing the entity erases its profile. Callers serialize an entity's writes
 * (`FormedMemories.locked`).
 */
export class EntityProfiles {
  constructor(
    private readonly longterm: LongtermMemoryService,
    readonly schema: ProfileSchema,
  ) {}

  /** The entity's profile, or `undefined` when it has none. */
  async get(entityId: string): Promise<EntityProfile | undefined> {
    const record = await this.longterm.store.load(formedEntityOf(entityId), PROFILE_KEY);
    return record ? profileOf(record.value) : undefined;
  }

  /** The profile's versions, oldest first, `limit` (at most 100) after version `after`. */
  async history(entityId: string, limit: number, after?: number): Promise<ProfileVersion[]> {
    const page = await this.longterm.store.search(
      formedEntityOf(entityId),
      VERSION_PREFIX,
      Math.min(limit, MAX_PROFILE_HISTORY_PAGE),
      after === undefined ? undefined : versionKey(after),
    );
    return page.flatMap((record) => {
      const profile = profileOf(record.value);
      const patch = (record.value as { patch?: unknown }).patch;
      return profile && isJsonObject(patch) ? [{ ...profile, patch }] : [];
    });
  }

  /**
   * A person's or the app's edit (HTTP, MCP, code): the patch at a fresh seq of the entity, with no
   * other write of the entity's memories in this process between.
   */
  edit(entityId: string, patch: unknown): Promise<ProfilePatchOutcome> {
    const memories = new FormedMemories(this.longterm);
    return memories.locked(entityId, async () =>
      this.apply(
        entityId,
        patch,
        { seq: await memories.nextSeq(entityId), at: Date.now() },
        { origin: 'edit' },
      ),
    );
  }

  /**
   * Applies a merge patch at a seq and time (call it with the entity's writes serialized). Refused,
   * with the reason, when the patch is not an object or larger than `maxBytes`, the result breaks
   * the schema or the size, the profile was changed at a later seq (a later job or edit), or the
   * store refuses the write (the entity erased since the seq was taken). A job's patch (`jobId`)
   * is applied once: its version notes the job, and a later attempt or a re-run of it finds the
   * note and writes nothing. `unchanged` when the patch changes nothing (no version is made).
   */
  async apply(
    entityId: string,
    patch: unknown,
    at: { seq: number; at: number },
    source: { origin: EntityProfile['origin']; runId?: string; jobId?: string },
  ): Promise<ProfilePatchOutcome> {
    if (!isJsonObject(patch))
      return { status: 'refused', reason: 'a profile patch is a JSON object (RFC 7396)' };
    const patchBytes = Buffer.byteLength(JSON.stringify(patch));
    if (patchBytes > this.schema.maxBytes)
      return {
        status: 'refused',
        reason: `the patch takes ${patchBytes} bytes, more than formation.profile.maxBytes (${this.schema.maxBytes})`,
      };
    const formed = formedEntityOf(entityId);
    const { store } = this.longterm;
    const [noted, stored] = await Promise.all([
      source.jobId ? store.load(formed, jobKey(source.jobId)) : null,
      store.load(formed, PROFILE_KEY),
    ]);
    const current = stored ? profileOf(stored.value) : undefined;
    if (noted) return { status: 'applied', profile: current }; // an earlier attempt did
    if (stored && stored.seq > at.seq)
      return {
        status: 'refused',
        reason: 'the profile changed after this job began (an edit or a later job)',
      };
    const document = applyMergePatch(current?.document ?? {}, patch) as JsonObject;
    const problem = this.schema.check(document);
    if (problem) return { status: 'refused', reason: problem };
    if (isDeepStrictEqual(document, current?.document ?? {})) {
      // A job's note all the same: a re-run of it later must not apply its patch again.
      if (source.jobId)
        await this.longterm
          .save({
            entityId: formed,
            key: jobKey(source.jobId),
            value: {},
            seq: at.seq,
            updatedAt: at.at,
          })
          .catch(() => undefined);
      return { status: 'unchanged', profile: current };
    }
    const profile: EntityProfile = {
      document,
      version: (current?.version ?? 0) + 1,
      updatedAt: at.at,
      origin: source.origin,
      ...(source.runId === undefined ? {} : { runId: source.runId }),
    };
    const writes = [
      { key: versionKey(profile.version), value: { ...profile, patch } },
      { key: PROFILE_KEY, value: { ...profile } },
      ...(source.jobId ? [{ key: jobKey(source.jobId), value: { version: profile.version } }] : []),
    ];
    try {
      const { applied } = await this.longterm.saveMany(
        writes.map((write) => ({ ...write, entityId: formed, seq: at.seq, updatedAt: at.at })),
      );
      if (applied.every(Boolean)) return { status: 'applied', profile };
    } catch (error) {
      return { status: 'refused', reason: `the store refused it: ${(error as Error).message}` };
    }
    return { status: 'refused', reason: 'the entity was erased, or its profile changed since' };
  }
}

function profileOf(value: unknown): EntityProfile | undefined {
  if (!isJsonObject(value) || !isJsonObject(value['document'])) return undefined;
  const { document, version, updatedAt, origin, runId } = value;
  return {
    document,
    version: Number(version),
    updatedAt: Number(updatedAt),
    origin: origin === 'edit' ? 'edit' : 'formation',
    ...(typeof runId === 'string' ? { runId } : {}),
  };
}
