import type {
  AgentRunRecord,
  AgentRunResult,
  AgentRunStatus,
} from '../interfaces/agent-run.interface.js';
import type { RunStore } from './run-store.interface.js';
import { CLAIMED_AT_KEY, STATUS_KEY } from './run-entry-keys.js';
import {
  type StoredRecord,
  describeError,
  newRev,
  parsed,
  publicRecord,
} from './run-record-fields.js';
import { RunLostError } from '../errors/run-lost.error.js';
import type { RunSnapshot } from './run-snapshot.js';

export { RunLostError } from '../errors/run-lost.error.js';
export type { RunSnapshot } from './run-snapshot.js';

/**
 * How long a run record written by an older version of the package (one without a lease) may stay
 * `running` before `reserve` lets another caller take it over: 10 minutes.
 */
export const STALE_RUNNING_MS = 10 * 60 * 1000;

/**
 * Default lease of a run's owner: 10 s, renewed every third of it while the owner holds the run, so
 * a run whose process died is taken over (or, queued, evicted from its conversation's order) within
 * 10 s; with Bull's default lock this keeps every acknowledged run settling within 30 s of a kill.
 */
export const DEFAULT_RUN_LEASE_MS = 10_000;

/** What a transition writes besides the status. */
export interface RunTransition {
  result?: AgentRunResult;
  error?: unknown;
  /** Counts one more attempt. */
  startsAttempt?: boolean;
  /** The holder after the write: its token (the lease runs from now), or none (e.g. a durable queue holds it). */
  owner?: string;
  /** Writes only while the record is held by this token (and not settled), in this status if given. */
  onlyIfHeld?: { owner: string; status?: AgentRunStatus };
  /** For a record's first write: when the run was claimed (default: now). */
  createdAt?: number;
}

/** Transitions tried again when another writer changed the record in between. */
const MAX_CAS_ROUNDS = 20;

/**
 * Run records (status, result, error, attempts) in the run store. Every write is one atomic
 * compare-and-set of the whole record, so a record is never half-written and never overwritten by a
 * writer that read an older one. A run that is not settled is held by an owner under a lease the
 * owner renews ({@link renew}); a run whose owner stopped renewing (its process died) is taken over
 * by the next `reserve` once the lease ran out.
 */
export class RunRecords {
  constructor(
    private readonly store: RunStore,
    private readonly leaseMs = DEFAULT_RUN_LEASE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The lease every owner gets, in ms. */
  get lease(): number {
    return this.leaseMs;
  }

  /** The run's record; from `known` when it holds one (else read, and noted in `known`). */
  async get(runId: string, known?: RunSnapshot): Promise<AgentRunRecord | undefined> {
    const stored = known?.json !== undefined ? parsed(known.json) : await this.read(runId);
    if (known) known.json = stored?.json ?? null;
    return stored && publicRecord(stored.record);
  }

  /** A first attempt's record from its claim time, for its claim to store (its lease counts from now). */
  firstAttempt(runId: string, conversationId: string, owner: string) {
    const first = (createdAt: number) => ({ startsAttempt: true, owner, createdAt });
    return (at: number) =>
      JSON.stringify(this.build(undefined, runId, conversationId, 'running', first(at)));
  }

  /**
   * Reserves the run for `owner`: records it `running` under `owner`'s lease unless it has a record
   * (one atomic write: the first caller wins) and resolves `undefined` to the winner; otherwise the
   * record. A `failed` run, or one whose owner's lease ran out, is taken over the same way (one
   * compare-and-set: exactly one caller wins).
   */
  async reserve(
    runId: string,
    conversationId: string,
    owner: string,
  ): Promise<AgentRunRecord | undefined> {
    const mine = this.build(undefined, runId, conversationId, 'running', {
      owner,
      createdAt: await this.claimedAt(runId),
    });
    const json = JSON.stringify(mine);
    const stored = await this.store.putIfAbsent(runId, STATUS_KEY, json);
    if (stored === json) return undefined;
    const record = JSON.parse(stored) as StoredRecord;
    if (!this.takeable(record)) return publicRecord(record);
    const taken = this.build(record, runId, conversationId, 'running', { owner });
    if (await this.store.replaceIf(runId, STATUS_KEY, stored, JSON.stringify(taken)))
      return undefined;
    // Another caller took it first (or its owner wrote meanwhile): theirs is the answer.
    return this.get(runId);
  }

  /**
   * Moves the run to `status` (one compare-and-set, tried again if another writer came first);
   * resolves the record written, or the current one when the transition does not apply: a completed
   * run is never downgraded, a record of another conversation is never written over, and
   * `onlyIfHeld` writes only while that owner holds the run.
   */
  async set(
    runId: string,
    conversationId: string,
    status: AgentRunStatus,
    details: RunTransition = {},
    known?: RunSnapshot,
  ): Promise<AgentRunRecord> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round += 1) {
      // The first round compares against what the caller knew, if anything (see RunSnapshot).
      const fromKnown = round === 0 && known?.json !== undefined;
      const current = fromKnown ? parsed(known.json!) : await this.read(runId);
      const previous = current?.record;
      const skip =
        (previous && !this.applies(previous, conversationId, status, details)) ||
        (!previous && details.onlyIfHeld);
      if (skip && fromKnown) continue;
      if (previous && skip) return publicRecord(previous);
      if (skip) return this.build(undefined, runId, conversationId, status);
      const next = this.build(previous, runId, conversationId, status, {
        ...details,
        ...(previous ? {} : { createdAt: known?.claimedAt ?? (await this.claimedAt(runId)) }),
      });
      const json = JSON.stringify(next);
      const written = current
        ? await this.store.replaceIf(runId, STATUS_KEY, current.json, json)
        : (await this.store.putIfAbsent(runId, STATUS_KEY, json)) === json;
      if (written) {
        if (known) known.json = json;
        return publicRecord(next);
      }
    }
    throw new Error(`Run ${runId}: its record kept changing; status ${status} not written`);
  }

  /**
   * Extends `owner`'s lease on the run. `gone` when the run is settled or held by another owner (its
   * lease ran out and another caller took it over): stop renewing. `waiting` when it is not held by
   * anyone yet (no record, or a queue holds it until the attempt starts): keep the hold.
   */
  async renew(runId: string, owner: string): Promise<'renewed' | 'gone' | 'waiting'> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round += 1) {
      const current = await this.read(runId);
      if (!current) return 'waiting';
      const { record } = current;
      if (record.status === 'completed' || record.status === 'failed') return 'gone';
      if (record.owner === undefined) return 'waiting';
      if (record.owner !== owner) return 'gone';
      const renewed: StoredRecord = {
        ...record,
        leaseUntil: this.now() + this.leaseMs,
        rev: newRev(),
      };
      if (await this.store.replaceIf(runId, STATUS_KEY, current.json, JSON.stringify(renewed)))
        return 'renewed';
      // Another write of the record came first (this process's own, often): read it again.
    }
    return 'waiting';
  }

  /**
   * Records a run nobody will run as `failed` (its job is gone: a queue lost it, or its submitter
   * died before adding it), unless it settled or is held under a live lease meanwhile. Resolves
   * whether it wrote.
   */
  async markLost(runId: string, conversationId: string): Promise<boolean> {
    for (let round = 0; round < MAX_CAS_ROUNDS; round += 1) {
      const current = await this.read(runId);
      if (!current) return false;
      const { record } = current;
      const held = record.leaseUntil !== undefined && !this.expired(record);
      if (record.status === 'completed' || record.status === 'failed' || held) return false;
      const lost = this.build(record, runId, conversationId, 'failed', {
        error: new RunLostError(runId),
      });
      if (await this.store.replaceIf(runId, STATUS_KEY, current.json, JSON.stringify(lost)))
        return true;
    }
    return false;
  }

  /**
   * Takes over, for `owner`, a run whose holder's lease ran out before it settled (its process
   * died): `queued` again under `owner`'s lease (one compare-and-set: exactly one caller wins).
   * Resolves whether this caller won.
   */
  async takeOver(runId: string, conversationId: string, owner: string): Promise<boolean> {
    const current = await this.read(runId);
    if (!current) return false;
    const { record } = current;
    const settled = record.status === 'completed' || record.status === 'failed';
    if (settled || record.leaseUntil === undefined || !this.expired(record)) return false;
    const taken = this.build(record, runId, conversationId, 'queued', { owner });
    return this.store.replaceIf(runId, STATUS_KEY, current.json, JSON.stringify(taken));
  }

  /**
   * How a run stands for the queue's order: `settled` (completed, failed, or unknown: expired or
   * erased); `abandoned` (queued or running under a lease that ran out: its holder died); `queued`
   * (handed to a durable queue, which holds it without a lease); `live` (held under a lease).
   */
  async headState(runId: string): Promise<'settled' | 'abandoned' | 'queued' | 'live'> {
    const current = await this.read(runId);
    if (!current) return 'settled';
    const { record } = current;
    if (record.status === 'completed' || record.status === 'failed') return 'settled';
    if (record.leaseUntil !== undefined) return this.expired(record) ? 'abandoned' : 'live';
    if (record.status === 'queued') return 'queued';
    // A running record of an older version (no lease): abandoned after the old takeover time.
    return this.now() - record.updatedAt > STALE_RUNNING_MS ? 'abandoned' : 'live';
  }

  private applies(
    previous: StoredRecord,
    conversationId: string,
    status: AgentRunStatus,
    { onlyIfHeld }: RunTransition,
  ): boolean {
    if (previous.conversationId !== conversationId) return false;
    if (previous.status === 'completed' && status !== 'completed') return false;
    if (!onlyIfHeld) return true;
    return (
      this.heldBy(previous, onlyIfHeld.owner) &&
      (onlyIfHeld.status === undefined || previous.status === onlyIfHeld.status)
    );
  }

  /** When the run was claimed (its place in the conversation's run list), if it was. */
  private async claimedAt(runId: string): Promise<number | undefined> {
    const stored = await this.store.get(runId, CLAIMED_AT_KEY);
    return stored === undefined ? undefined : Number(stored);
  }

  private async read(runId: string): Promise<{ json: string; record: StoredRecord } | undefined> {
    return parsed((await this.store.get(runId, STATUS_KEY)) ?? null);
  }

  private heldBy(record: StoredRecord | undefined, owner: string): boolean {
    return (
      record !== undefined &&
      record.owner === owner &&
      record.status !== 'completed' &&
      record.status !== 'failed'
    );
  }

  private expired(record: StoredRecord): boolean {
    return record.leaseUntil !== undefined && record.leaseUntil < this.now();
  }

  /** Failed, or held under a lease that ran out; a record of an older version: running for 10 min. */
  private takeable(record: StoredRecord): boolean {
    if (record.status === 'failed') return true;
    if (record.status === 'completed') return false;
    if (record.leaseUntil !== undefined) return this.expired(record);
    return record.status === 'running' && this.now() - record.updatedAt > STALE_RUNNING_MS;
  }

  private build(
    previous: StoredRecord | undefined,
    runId: string,
    conversationId: string,
    status: AgentRunStatus,
    details: RunTransition = {},
  ): StoredRecord {
    const now = this.now();
    const attempts = (previous?.attempts ?? 0) + (details.startsAttempt ? 1 : 0);
    const settled = status === 'completed' || status === 'failed';
    return {
      runId,
      conversationId,
      status,
      ...(details.result ? { result: details.result } : {}),
      ...(details.error !== undefined ? { error: describeError(details.error) } : {}),
      ...(attempts > 0 ? { attempts } : {}),
      createdAt: previous?.createdAt ?? details.createdAt ?? now,
      updatedAt: now,
      ...(details.owner !== undefined && !settled
        ? { owner: details.owner, leaseUntil: now + this.leaseMs }
        : {}),
      rev: newRev(),
    };
  }
}
