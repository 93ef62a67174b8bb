import { Logger } from '@nestjs/common';
import { ValueTooLargeError } from '../../common/errors/value-too-large.error.js';
import {
  type BackendSnapshot,
  entryBytes,
  type WorkingMemoryBackend,
  type WriteOutcome,
  type WriteRequest,
} from './backends/working-memory-backend.interface.js';
import { WorkingMemoryFullError, WorkingMemoryQuotaError } from './errors/working-memory.errors.js';
import type { WorkingMemoryExpireHook } from './interfaces/working-memory.interface.js';
import type { WorkingMemoryQuota } from './working-memory.options.js';
import { tenantOfStoredId } from '../../common/tenant-of.js';

/** Memories one attempt to make room on a full process may reclaim. */
const MAKE_ROOM_BATCH = 20;
/** Attempts to make room for one write before it is refused. */
const MAKE_ROOM_ROUNDS = 5;

/** What {@link WorkingMemoryCapacity} enforces. */
export interface CapacitySettings {
  backend: WorkingMemoryBackend;
  /** Most bytes of one value's JSON. */
  maxValueBytes: number;
  quota?: WorkingMemoryQuota;
  /** How long a memory must be idle before a full process may reclaim it. */
  reclaimAfterIdleMs: number;
  onExpire?: WorkingMemoryExpireHook;
  now: () => number;
  /** The snapshot the hook sees. */
  parse: (
    conversationId: string,
    snapshot: BackendSnapshot,
  ) => Parameters<WorkingMemoryExpireHook>[0];
}

/**
 * The limits around every working-memory write: the size of one value, a tenant's quota (bytes and
 * memories, across conversations), and the process's capacity on the memory backend (a full
 * process reclaims idle memories, least recently used first, through the on-expire hook).
 */
export class WorkingMemoryCapacity {
  private readonly logger = new Logger('WorkingMemory');

  constructor(private readonly settings: CapacitySettings) {}

  /** Throws `ValueTooLargeError` when a value's JSON is over the per-write limit. */
  checkValue(key: string, json: string): void {
    const size = Buffer.byteLength(json);
    if (size > this.settings.maxValueBytes)
      throw new ValueTooLargeError(`value of "${key}"`, size, this.settings.maxValueBytes);
  }

  /**
   * Writes through the backend within the limits: the owner's quota checked first, room made on a
   * full process (up to {@link MAKE_ROOM_ROUNDS} times), the owner charged after.
   */
  async write(conversationId: string, request: WriteRequest): Promise<WriteOutcome> {
    const { backend, quota } = this.settings;
    const owner = quota ? ownerOf(quota, conversationId) : undefined;
    if (owner !== undefined) await this.admit(owner, conversationId, request);
    let outcome = await backend.write(conversationId, request);
    for (let round = 0; outcome.status === 'full' && round < MAKE_ROOM_ROUNDS; round += 1) {
      if (!(await this.makeRoom(conversationId))) break;
      outcome = await backend.write(conversationId, request);
    }
    if (outcome.status === 'full') throw new WorkingMemoryFullError(request.key);
    if (outcome.status === 'ok' && owner !== undefined)
      await backend.charge(
        owner,
        outcome.sizeBytes - outcome.previousSizeBytes,
        outcome.created ? 1 : 0,
      );
    return outcome;
  }

  /** Releases what a removed entry held from its owner's usage. */
  async released(conversationId: string, bytes: number, conversations = 0): Promise<void> {
    const { quota, backend } = this.settings;
    if (!quota || (bytes === 0 && conversations === 0)) return;
    await backend.charge(ownerOf(quota, conversationId), -bytes, -conversations);
  }

  /** Deletes a memory now, whatever uses it (no hook); resolves whether it had one. */
  async drop(conversationId: string): Promise<boolean> {
    const size = await this.settings.backend.drop(conversationId);
    if (size === undefined) return false;
    await this.released(conversationId, size, 1);
    return true;
  }

  /**
   * Deletes an idle memory after the on-expire hook, unless something used it meanwhile; resolves
   * whether it went. A memory whose hook fails is kept and counted idle from now: it is tried
   * again a TTL later, and does not block the memories behind it.
   */
  async expire(conversationId: string): Promise<boolean> {
    const { backend, onExpire, parse, now } = this.settings;
    const snapshot = await backend.snapshot(conversationId);
    if (!snapshot) return false;
    if (onExpire) {
      try {
        await onExpire(parse(conversationId, snapshot));
      } catch (error) {
        this.logger.warn(
          `On-expire hook failed for ${conversationId}; its working memory is kept: ${String(error)}`,
        );
        await backend.postpone(conversationId, now());
        return false;
      }
    }
    if (!(await backend.deleteIfUntouched(conversationId, snapshot.touch))) return false;
    await this.released(conversationId, snapshot.sizeBytes, 1);
    return true;
  }

  /** Reclaims memories idle long enough, least recently used first; whether any went. */
  private async makeRoom(writing: string): Promise<boolean> {
    const { backend, now, reclaimAfterIdleMs } = this.settings;
    const idle = await backend.idle(now() - reclaimAfterIdleMs, MAKE_ROOM_BATCH);
    let freed = false;
    for (const conversationId of idle)
      if (conversationId !== writing && (await this.expire(conversationId))) freed = true;
    if (freed) this.logger.warn('Working memory of this process was full: idle memories reclaimed');
    return freed;
  }

  private async admit(owner: string, conversationId: string, request: WriteRequest): Promise<void> {
    const quota = this.settings.quota!;
    const usage = await this.settings.backend.admission(owner, conversationId, request.key);
    const bytes = usage.ownerBytes - usage.entryBytes + entryBytes(request.key, request.json);
    if (quota.maxBytes !== undefined && bytes > quota.maxBytes && bytes > usage.ownerBytes)
      throw new WorkingMemoryQuotaError(owner, 'bytes', quota.maxBytes);
    if (
      quota.maxConversations !== undefined &&
      !usage.exists &&
      usage.ownerConversations + 1 > quota.maxConversations
    )
      throw new WorkingMemoryQuotaError(owner, 'conversations', quota.maxConversations);
  }
}

/** The owner of a conversation under a quota: the text before its first `/` by default. */
function ownerOf(quota: WorkingMemoryQuota, conversationId: string): string {
  if (quota.ownerOf) {
    const owner = quota.ownerOf(conversationId);
    if (typeof owner !== 'string')
      throw new Error(
        `WorkingMemoryModule quota.ownerOf must return a string, got ${typeof owner} for a conversation`,
      );
    return owner;
  }
  return tenantOfStoredId(conversationId);
}
