import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { AgentMemoryError } from '../../common/errors/agent-memory.error.js';
import { isActive, memoryId } from './consolidation-rules.js';
import { MAX_MEMORY_TEXT } from './formation-answers.js';
import type { FormedMemories } from './formed-memories.js';
import type { FormedMemory } from './formed-memory.interface.js';
import { hasWords, isSameStatement } from './memory-similarity.js';

/** The memory is no longer active (a newer version replaced it, or it was invalidated). */
export class MemoryNotActiveError extends AgentMemoryError {
  constructor(
    readonly memoryId: string,
    readonly newest?: string,
  ) {
    super(
      `Memory ${memoryId} is no longer active${newest ? `: its newest version is ${newest}` : ''}`,
    );
    this.name = 'MemoryNotActiveError';
  }
}

/**
 * A person's correction of a formed memory (through the API, MCP or a tool): a new version with
 * the text given supersedes it, and both are kept. The same words change nothing; the same
 * `editKey` again (a retried tool call's idempotency key) returns the version it wrote. `null` when
 * the entity has no such memory; `MemoryNotActiveError` when it was replaced or invalidated. In a
 * process, corrections, retractions and formation jobs of one entity write one at a time; across
 * processes, a correction that finds its closing overwritten closes its own version and is refused.
 */
export async function correctMemory(
  memories: FormedMemories,
  entityId: string,
  id: string,
  text: string,
  editKey: string = randomUUID(),
): Promise<FormedMemory | null> {
  const wanted = checkedText(text);
  const versionId = memoryId(`edit-${editKey}`, 0);
  return memories.locked(entityId, async () => {
    const found = await memories.get(entityId, id);
    if (!found) return null;
    // The same edit again (a retried tool call): what it wrote stands.
    if (found.supersededBy === versionId) return memories.get(entityId, versionId);
    const current = activeVersion(found);
    if (isSameStatement(current.text, wanted)) return current;
    const seq = await memories.nextSeq(entityId);
    const now = Date.now();
    const version: FormedMemory = {
      id: versionId,
      entityId,
      text: wanted,
      kind: current.kind,
      sources: current.sources,
      observedAt: now,
      supersedes: current.id,
      origin: 'edit',
      createdAt: now,
      updatedAt: now,
    };
    const closed = { ...current, validUntil: now, supersededBy: versionId, updatedAt: now };
    const applied = await memories.saveVersions(entityId, { seq, at: now }, [closed, version]);
    // Another process's write of the same memory at a higher seq: the one it made stands, and
    // this one's version (if it was written) is closed, so one version stays active.
    const after = await memories.get(entityId, current.id);
    if (!applied || after?.supersededBy !== versionId) {
      if (applied)
        await memories.saveVersions(entityId, { seq, at: now }, [{ ...version, validUntil: now }]);
      throw new MemoryNotActiveError(current.id, after?.supersededBy);
    }
    return version;
  });
}

/**
 * A person's retraction of a formed memory: it stops being active now and is kept (its history
 * stays readable). A memory already retracted is returned as it is; `null` when the entity has no
 * such memory; `MemoryNotActiveError` when a newer version replaced it (also when another process
 * replaced it while this retraction was written).
 */
export async function forgetMemory(
  memories: FormedMemories,
  entityId: string,
  id: string,
): Promise<FormedMemory | null> {
  return memories.locked(entityId, async () => {
    const found = await memories.get(entityId, id);
    if (!found) return null;
    if (found.supersededBy === undefined && !isActive(found, Date.now())) return found;
    const current = activeVersion(found);
    const seq = await memories.nextSeq(entityId);
    const now = Date.now();
    const closed = { ...current, validUntil: now, updatedAt: now };
    const applied = await memories.saveVersions(entityId, { seq, at: now }, [closed]);
    const after = await memories.get(entityId, id);
    if (!applied || !after || after.supersededBy !== undefined || after.validUntil !== now)
      throw new MemoryNotActiveError(id, after?.supersededBy);
    return closed;
  });
}

function activeVersion(memory: FormedMemory): FormedMemory {
  if (!isActive(memory, Date.now())) throw new MemoryNotActiveError(memory.id, memory.supersededBy);
  return memory;
}

function checkedText(text: unknown): string {
  if (typeof text !== 'string') throw new InvalidArgumentError('text', 'must be a string');
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (!hasWords(trimmed)) throw new InvalidArgumentError('text', 'must hold a word');
  if (trimmed.length > MAX_MEMORY_TEXT)
    throw new InvalidArgumentError('text', `must be at most ${MAX_MEMORY_TEXT} characters`);
  return trimmed;
}
