import type { FormedMemory } from '../../formation/formed-memory.interface.js';
import type { TenantScope } from './tenant-scope.js';

/** A formed memory with the ids the tenant knows (its entity's, its sources' conversations'). */
export function formedMemoryShown(
  memory: FormedMemory,
  entityId: string,
  scope: TenantScope,
): FormedMemory {
  return {
    ...memory,
    entityId,
    sources: memory.sources.map((source) => ({
      ...source,
      conversationId: conversationShown(source.conversationId, scope),
    })),
  };
}

/**
 * A conversation id as the tenant knows it. An entity's memories come from its tenant's own
 * conversations; an id of another tenant (written through the library) is never shown.
 */
export function conversationShown(storedId: string, scope: TenantScope): string {
  return scope.tenant === undefined ? storedId : (scope.unscoped(storedId) ?? '');
}
