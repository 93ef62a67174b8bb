import { KeyedSerial } from '../../common/keyed-serial.js';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';
import type { LongtermRecord } from '../longterm/interfaces/longterm-store.interface.js';
import { formedEntityOf } from '../longterm/recall/derived-entities.js';
import { entityLeaseName, entityLeasesOf } from './entity-leases.js';
import { type Consolidation, createdBy, isActive } from './consolidation-rules.js';
import {
  type FailedFormation,
  type FailedJob,
  FormationFailures,
  formedPage,
} from './formation-failures.js';
import type { FormationUsage } from './formation-model.interface.js';
import type { AppliedOperation, FormedMemory } from './formed-memory.interface.js';

/** What a formation job left: the record written with its memories, in the same flush. */
export interface FormationJobRecord {
  jobId: string;
  conversationId: string;
  runId: string;
  /** The formation model's id. */
  model: string;
  operations: AppliedOperation[];
  /** When the job was queued (epoch ms): the time of its writes. */
  at: number;
  /** Tokens the job's model calls used. */
  usage?: FormationUsage;
  /** With a profile: what the job's patch did (the members it named, the version it made). */
  profile?: {
    status: 'applied' | 'unchanged' | 'refused';
    members: string[];
    version?: number;
    reason?: string;
  };
}

/** Which memories a list shows: active ones (default), every version, or those active at a time. */
export interface MemoryListOptions {
  state?: 'active' | 'all';
  /** Those that held at this time (epoch ms): from their `validFrom` (else when said) to their `validUntil`. */
  asOf?: number;
  limit: number;
  /** The id after which the page starts (a list's `next`). */
  after?: string;
}

/** Longest chain a memory's history follows, each way. */
const MAX_HISTORY = 100;
/** Most memory versions one `list` call reads (a filtered page may end sooner, with a cursor). */
const MAX_SCANNED = 1_000;
/** Per long-term tier, the entities whose memories are being written in this process. */
const WRITING = new WeakMap<LongtermMemoryService, KeyedSerial>();
/** Key prefixes in an entity's formed-memory entity: its memory versions, its jobs' records. */
const MEMORY_KEY_PREFIX = 'memory/';
const JOB_KEY_PREFIX = 'job/';

/**
 * Formed memories of an entity, stored as long-term records of an entity derived from its id
 * (`formedEntityOf`): apart from the records the app writes (no list, search or recall of the
 * entity's own shows them, no caller can write one), found by the text of their active versions,
 * and erased with the entity (`deleteEntity`), whose erasure mark refuses a late job's writes. A
 * job's memories are written at the job's seq, then its record: a job whose record exists has
 * been written whole.
 */
export class FormedMemories {
  /** The notes of the entity's failed jobs (recorded, listed, run again). */
  readonly failed: FormationFailures;

  constructor(private readonly longterm: LongtermMemoryService) {
    this.failed = new FormationFailures(longterm);
  }

  /** The seq a formation job of the entity writes at: taken when the job is created. */
  nextSeq(entityId: string): Promise<number> {
    return this.longterm.nextSeq(formedEntityOf(entityId));
  }

  /**
   * Runs `work` once the writes of the entity's memories begun earlier ended (a job's write, a
   * correction, a profile change) — in this process, and in the app's other processes when the
   * agent shares its run store (`shareEntityLeases`): what each checks before it writes
   * still holds when it writes.
   */
  locked<T>(entityId: string, work: () => Promise<T>): Promise<T> {
    let writing = WRITING.get(this.longterm);
    if (!writing) WRITING.set(this.longterm, (writing = new KeyedSerial()));
    // Across processes too, when the app shares a store for it (the agent's run store).
    const leases = entityLeasesOf(this.longterm);
    return writing.run(entityId, () =>
      leases ? leases.hold(entityLeaseName('write', entityId), work) : work(),
    );
  }

  /**
   * Writes a job's memories, then its record, at the job's seq and time (call it `locked`). First
   * checks that every version of the entity the job closes is still open and not stored at a later
   * seq (else writes nothing: a correction or a later job changed it since the job read it; a
   * version the job itself creates and closes again — "I live in Berlin. I live in Rome." — is not
   * stored yet, and needs no check); then writes the
   * closings, the new versions, and the record, each only if the one before was applied. False when
   * anything was refused (also when the entity was erased after the job began): the record is then
   * not written, and a retry does not report the job done.
   */
  async write(
    entityId: string,
    job: { seq: number; at: number },
    consolidation: Consolidation,
    record: FormationJobRecord,
    /** Once the versions are written, before the record: more of the job (its profile patch). */
    beforeRecord?: () => Promise<Partial<FormationJobRecord>>,
  ): Promise<boolean> {
    const closings = consolidation.writes.filter((memory) => memory.validUntil !== undefined);
    const fresh = consolidation.writes.filter((memory) => memory.validUntil === undefined);
    const created = createdBy(consolidation);
    for (const closing of closings)
      if (!created.has(closing.id) && !(await this.stillClosable(entityId, closing, job.seq)))
        return false;
    if (!(await this.saveVersions(entityId, job, closings))) return false;
    if (!(await this.saveVersions(entityId, job, fresh))) return false;
    Object.assign(record, await beforeRecord?.());
    const { applied } = await this.longterm.save({
      entityId: formedEntityOf(entityId),
      key: JOB_KEY_PREFIX + record.jobId,
      value: { ...record },
      seq: job.seq,
      updatedAt: job.at,
    });
    return applied;
  }

  /**
   * Whether the stored version a job closes is still open at a seq the job may overwrite — or is
   * already closed by this job (an earlier attempt of it wrote the closing).
   */
  private async stillClosable(entityId: string, closing: FormedMemory, seq: number) {
    const record = await this.longterm.store.load(
      formedEntityOf(entityId),
      MEMORY_KEY_PREFIX + closing.id,
    );
    if (!record) return false;
    const stored = memoryOf(entityId, record);
    if (
      record.seq === seq &&
      stored.validUntil === closing.validUntil &&
      stored.supersededBy === closing.supersededBy
    )
      return true;
    return record.seq <= seq && stored.validUntil === undefined && !stored.supersededBy;
  }

  /** Writes memory versions at a seq and time; false when the store refused any of them. */
  async saveVersions(
    entityId: string,
    at: { seq: number; at: number },
    versions: readonly FormedMemory[],
  ): Promise<boolean> {
    if (versions.length === 0) return true;
    const formed = formedEntityOf(entityId);
    const { applied } = await this.longterm.saveMany(
      versions.map((memory) => ({
        entityId: formed,
        key: MEMORY_KEY_PREFIX + memory.id,
        value: stored(memory),
        seq: at.seq,
        updatedAt: at.at,
      })),
    );
    return applied.every(Boolean);
  }

  /** Notes that a job spent its attempts (best effort; see {@link FormationFailures.record}). */
  recordFailure(
    entityId: string,
    job: FailedJob,
    failure: { error: string; errorName?: string; attempts: number },
  ): Promise<void> {
    return this.failed.record(entityId, job, failure);
  }

  /** The entity's failed formation jobs, oldest job id first (at most `limit`, after `after`). */
  failures(entityId: string, limit: number, after?: string): Promise<FailedFormation[]> {
    return this.failed.list(entityId, limit, after);
  }

  /** The record a job left, or null when it has not written (or its entity was erased). */
  async job(entityId: string, jobId: string): Promise<FormationJobRecord | null> {
    const record = await this.longterm.store.load(formedEntityOf(entityId), JOB_KEY_PREFIX + jobId);
    return record ? (record.value as unknown as FormationJobRecord) : null;
  }

  /** The records of the entity's written formation jobs, in job id order: `limit` after `after`. */
  jobs(entityId: string, limit: number, after?: string): Promise<FormationJobRecord[]> {
    return formedPage<FormationJobRecord>(this.longterm, entityId, JOB_KEY_PREFIX, limit, after);
  }

  /** One version of a memory, or null. */
  async get(entityId: string, id: string): Promise<FormedMemory | null> {
    const record = await this.longterm.store.load(formedEntityOf(entityId), MEMORY_KEY_PREFIX + id);
    return record ? memoryOf(entityId, record) : null;
  }

  /**
   * A page of the entity's memories in id order, filtered by state or time; `next` is the id to
   * pass as `after` for the following page, when more may follow.
   */
  async list(
    entityId: string,
    options: MemoryListOptions,
  ): Promise<{ memories: FormedMemory[]; next?: string }> {
    const { state = 'active', asOf, limit } = options;
    const memories: FormedMemory[] = [];
    const formed = formedEntityOf(entityId);
    let after = options.after === undefined ? undefined : MEMORY_KEY_PREFIX + options.after;
    // Filtered pages: read on until the page is full, the memories run out, or MAX_SCANNED were
    // read (the page then ends early, with the cursor of the last one read).
    for (let scanned = 0; ;) {
      const records = await this.longterm.store.search(formed, MEMORY_KEY_PREFIX, limit, after);
      for (const record of records) {
        const memory = memoryOf(entityId, record);
        if (shown(memory, state, asOf)) memories.push(memory);
        if (memories.length === limit) return { memories, next: memory.id };
      }
      if (records.length < limit) return { memories };
      after = records.at(-1)!.key;
      scanned += records.length;
      if (scanned >= MAX_SCANNED) return { memories, next: after.slice(MEMORY_KEY_PREFIX.length) };
    }
  }

  /** Every version of a memory, oldest first: what it replaced, and what replaced it. */
  async history(entityId: string, id: string): Promise<FormedMemory[]> {
    const start = await this.get(entityId, id);
    if (!start) return [];
    const earlier: FormedMemory[] = [];
    for (let at = start; at.supersedes && earlier.length < MAX_HISTORY;) {
      const previous = await this.get(entityId, at.supersedes);
      if (!previous) break;
      earlier.unshift(previous);
      at = previous;
    }
    const later: FormedMemory[] = [];
    for (let at = start; at.supersededBy && later.length < MAX_HISTORY;) {
      const next = await this.get(entityId, at.supersededBy);
      if (!next) break;
      later.push(next);
      at = next;
    }
    return [...earlier, start, ...later];
  }

  /**
   * The entity's active memories nearest to a text, best first: recall over the text of their
   * active versions (full-text, fused with vectors when the tier has an embedder; reordered by the
   * tier's reranking model only when `rerank` — the turn's recall block, not consolidation's
   * candidates, which would cost a model call each).
   */
  async nearest(
    entityId: string,
    text: string,
    k: number,
    at: number,
    rerank = false,
  ): Promise<FormedMemory[]> {
    const hits = await this.longterm.recallFormed(entityId, text, {
      k: Math.min(100, k * 3),
      filter: { prefix: MEMORY_KEY_PREFIX },
      rerank,
    });
    return hits
      .map((hit) => memoryOf(entityId, hit.record))
      .filter((memory) => isActive(memory, at))
      .slice(0, k);
  }
}

function shown(memory: FormedMemory, state: 'active' | 'all', asOf: number | undefined): boolean {
  if (asOf !== undefined)
    return (
      (memory.validFrom ?? memory.observedAt) <= asOf &&
      (memory.validUntil === undefined || memory.validUntil > asOf)
    );
  return state === 'all' || isActive(memory, Date.now());
}

/** The stored value of a memory: all of it but the entity, which is the record's. */
function stored(memory: FormedMemory): Record<string, unknown> {
  return Object.fromEntries(Object.entries(memory).filter(([name]) => name !== 'entityId'));
}

function memoryOf(entityId: string, record: LongtermRecord): FormedMemory {
  return { ...(record.value as unknown as Omit<FormedMemory, 'entityId'>), entityId };
}
