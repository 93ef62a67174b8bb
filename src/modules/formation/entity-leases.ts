import { createHash } from 'node:crypto';
import type { LongtermMemoryService } from '../longterm/longterm-memory.service.js';

/**
 * Leases held across the processes of an app (on a store they share): work under a lease's name
 * runs in one process at a time. Formation holds `job:<entity>` for a job and `write:<entity>` for
 * each write of the entity's memories (a job's, a correction, a retraction, a profile change).
 */
export interface EntityLeases {
  /** Runs `work` once this process holds the lease `name`; lets go of it after. */
  hold<T>(name: string, work: () => Promise<T>): Promise<T>;
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
