import { createHash } from 'node:crypto';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';

/**
 * Leases held across the processes of an app (on a store they share): work under a lease's name
 * runs in one process at a time. Formation holds `job:<entity>` for a job and `write:<entity>` for
 * each write of the entity's memories (a job's, a correction, a retraction, a profile change).
 */
export interface EntityLeases {
  /**
   * Runs `work` once this process holds the lease `name`; lets go of it after. `signal` ends the
   * wait for it (the app shutting down).
   */
  hold<T>(name: string, work: (lease: EntityLease) => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** A lease while it is held. */
export interface EntityLease {
  /** Renews the lease now; throws {@link LeaseLostError} when another process took it meanwhile. */
  assertHeld(): Promise<void>;
}

/** The lease a work held was taken by another process (it was not renewed within its time). */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(name: string) {
    super(`A formation lease (${name.split(':')[0]}) was lost while held; the work is retried`);
  }
}

/** Why a lease could not be had: another process held it for longer than the wait. */
export class LeaseWaitTimeoutError extends Error {
  override readonly name = 'LeaseWaitTimeoutError';
  constructor(name: string, waitedMs: number) {
    super(
      `A formation lease (${name.split(':')[0]}) was held elsewhere for ${waitedMs} ms; try again later`,
    );
  }
}

/** Per long-term tier, the leases its formed memories' writes take (when the app shares a store). */
const SHARED = new WeakMap<LongtermMemoryService, EntityLeases>();

/**
 * Makes every write of formed memories through `longterm` (in this process) also hold its entity's
 * lease across processes: the agent does this when its run store is shared.
 */
export function shareEntityLeases(longterm: LongtermMemoryService, leases: EntityLeases): void {
  SHARED.set(longterm, leases);
}

/** The leases writes through `longterm` take, when shared. */
export function entityLeasesOf(longterm: LongtermMemoryService): EntityLeases | undefined {
  return SHARED.get(longterm);
}

/**
 * The name of an entity's lease of a kind (`job`, `write`): the entity id hashed, so a name has
 * the same short length whatever the id (stores bound their keys).
 */
export function entityLeaseName(kind: 'job' | 'write', entityId: string): string {
  return `${kind}:${createHash('sha256').update(entityId).digest('base64url')}`;
}
