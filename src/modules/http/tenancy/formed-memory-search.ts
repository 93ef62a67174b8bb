import { ServiceUnavailableException } from '@nestjs/common';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { FormedMemories } from '../../formation/formed-memories.js';
import type { FormedMemory } from '../../formation/formed-memory.interface.js';
import type { LongtermMemoryService } from '../../longterm/longterm-memory.service.js';
import { formedMemoryShown } from './formed-memory-view.js';
import type { TenantScope } from './tenant-scope.js';

/** Most memories one search returns: a recall ranks at most 100 hits. */
export const MAX_FORMED_MEMORY_SEARCH = 100;
/** Memories a search returns when the caller names no limit. */
export const DEFAULT_FORMED_MEMORY_SEARCH = 10;

/**
 * A tenant's search of an entity's formed memories, as the REST route (`?q=`) and the MCP tool
 * (`formed_memory_search`) serve it: the active memories that best match the words, best first,
 * with the ids the tenant knows. A tier with no list to search by (text search off and no
 * embedder, a setup formation refuses at start) is a 503 saying so.
 */
export async function searchFormedMemories(
  services: { readonly longterm: LongtermMemoryService },
  scope: TenantScope,
  entityId: string,
  words: string,
  limit: number,
): Promise<{ memories: FormedMemory[] }> {
  // The id first: a bad one is a 400 even while the tier is off (whose getter throws a 503).
  const id = scope.scoped(entityId, 'entityId');
  const memories = await new FormedMemories(services.longterm)
    .nearest(id, words, limit, Date.now())
    .catch((error: unknown) => {
      if (error instanceof InvalidArgumentError && error.argument === 'mode')
        throw new ServiceUnavailableException(
          'Searching formed memories needs text search or an embedder on the long-term tier, and neither is on',
        );
      throw error;
    });
  return { memories: memories.map((memory) => formedMemoryShown(memory, entityId, scope)) };
}
