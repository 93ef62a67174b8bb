import {
  type Admission,
  type BackendSnapshot,
  type WorkingMemoryBackend,
  type WriteOutcome,
  type WriteRequest,
  entryBytes,
} from './working-memory-backend.interface.js';

interface Memory {
  values: Map<string, string>;
  /** LRU tick per key. */
  uses: Map<string, number>;
  size: number;
  tick: number;
  touch: number;
  lastUsedAt: number;
}

/** What one process may hold in working memory on the memory backend. */
export interface InMemoryCapacity {
  /** Bytes of keys and values of every memory together. */
  maxTotalBytes: number;
  /** Memories (conversations) together. */
  maxConversations: number;
}

/** Default capacity of the memory backend: 64 MiB in 10,000 memories. */
export const DEFAULT_IN_MEMORY_CAPACITY: InMemoryCapacity = {
  maxTotalBytes: 64 * 1024 * 1024,
  maxConversations: 10_000,
};

/**
 * Process-local working memory (`backend: 'memory'`). Every operation is atomic (synchronous). The
 * memories are kept least recently used first (a use moves a memory to the end), so idle ones are
 * found from the front, and the whole process stays within its {@link InMemoryCapacity}: a write
 * past it is refused (`full`), and the service frees idle memories first.
 */
export class InMemoryWorkingMemoryBackend implements WorkingMemoryBackend {
  private readonly memories = new Map<string, Memory>();
  private readonly owners = new Map<string, { bytes: number; conversations: number }>();
  private totalBytes = 0;

  constructor(private readonly capacity: InMemoryCapacity = DEFAULT_IN_MEMORY_CAPACITY) {}

  async read(
    conversationId: string,
    key: string,
    touch: boolean,
    now: number,
  ): Promise<{ json?: string; touch: number }> {
    const memory = this.memories.get(conversationId);
    const json = memory?.values.get(key);
    if (memory && json !== undefined && touch) this.use(conversationId, memory, key, now);
    return { json, touch: memory?.touch ?? 0 };
  }

  async write(conversationId: string, request: WriteRequest): Promise<WriteOutcome> {
    const existing = this.memories.get(conversationId);
    const memory = existing ?? {
      values: new Map(),
      uses: new Map(),
      size: 0,
      tick: 0,
      touch: 0,
      lastUsedAt: request.now,
    };
    if (request.expectedTouch !== undefined && request.expectedTouch !== memory.touch)
      return { status: 'conflict' };
    const written = [{ key: request.key, json: request.json }, ...(request.also ?? [])];
    let size = memory.size;
    for (const { key, json } of written)
      size += entryBytes(key, json) - entryBytes(key, memory.values.get(key));
    const crossedSoftCap = size > request.limits.softCapBytes;
    const evicted: string[] = [];
    if (crossedSoftCap && request.eviction) {
      const { targetBytes, protectedPrefixes } = request.eviction;
      for (const key of [...memory.uses.entries()]
        .sort((a, b) => a[1] - b[1])
        .map(([key]) => key)) {
        if (size <= targetBytes) break;
        if (
          written.some((entry) => entry.key === key) ||
          protectedPrefixes.some((prefix) => key.startsWith(prefix))
        )
          continue;
        size -= entryBytes(key, memory.values.get(key));
        evicted.push(key);
      }
    }
    if (size > request.limits.capBytes) return { status: 'overflow', attemptedBytes: size };
    if (
      this.totalBytes - memory.size + size > this.capacity.maxTotalBytes ||
      (!existing && this.memories.size >= this.capacity.maxConversations)
    )
      return { status: 'full' };
    for (const key of evicted) {
      memory.values.delete(key);
      memory.uses.delete(key);
    }
    for (const { key, json } of written) {
      memory.values.set(key, json);
      if (!memory.uses.has(key)) memory.uses.set(key, ++memory.tick);
    }
    const previousSizeBytes = memory.size;
    this.totalBytes += size - previousSizeBytes;
    memory.size = size;
    this.use(conversationId, memory, request.key, request.now);
    return {
      status: 'ok',
      sizeBytes: size,
      previousSizeBytes,
      created: !existing,
      evicted,
      crossedSoftCap,
    };
  }

  async remove(
    conversationId: string,
    key: string,
    now: number,
  ): Promise<{ freedBytes: number; emptied: boolean }> {
    const memory = this.memories.get(conversationId);
    if (!memory?.values.has(key)) return { freedBytes: 0, emptied: false };
    const freedBytes = entryBytes(key, memory.values.get(key));
    memory.size -= freedBytes;
    this.totalBytes -= freedBytes;
    memory.values.delete(key);
    memory.uses.delete(key);
    if (memory.values.size === 0) {
      this.memories.delete(conversationId);
      return { freedBytes, emptied: true };
    }
    memory.touch += 1;
    memory.lastUsedAt = now;
    this.moveToEnd(conversationId, memory);
    return { freedBytes, emptied: false };
  }

  async keys(conversationId: string): Promise<string[]> {
    const uses = this.memories.get(conversationId)?.uses ?? new Map<string, number>();
    return [...uses.entries()].sort((a, b) => a[1] - b[1]).map(([key]) => key);
  }

  async size(conversationId: string): Promise<number> {
    return this.memories.get(conversationId)?.size ?? 0;
  }

  /** From the front of the LRU order: stops at the first memory used after `before`. */
  async idle(before: number, limit: number): Promise<string[]> {
    const idle: string[] = [];
    for (const [conversationId, memory] of this.memories) {
      if (idle.length >= limit || memory.lastUsedAt > before) break;
      idle.push(conversationId);
    }
    return idle;
  }

  async snapshot(conversationId: string): Promise<BackendSnapshot | undefined> {
    const memory = this.memories.get(conversationId);
    if (!memory) return undefined;
    const keys = await this.keys(conversationId);
    return {
      entries: keys.map((key) => [key, memory.values.get(key)!]),
      sizeBytes: memory.size,
      touch: memory.touch,
      lastUsedAt: memory.lastUsedAt,
    };
  }

  async deleteIfUntouched(conversationId: string, touch: number): Promise<boolean> {
    const memory = this.memories.get(conversationId);
    if (!memory || memory.touch !== touch) return false;
    this.memories.delete(conversationId);
    this.totalBytes -= memory.size;
    return true;
  }

  async drop(conversationId: string): Promise<number | undefined> {
    const memory = this.memories.get(conversationId);
    if (!memory) return undefined;
    this.memories.delete(conversationId);
    this.totalBytes -= memory.size;
    return memory.size;
  }

  async postpone(conversationId: string, now: number): Promise<void> {
    const memory = this.memories.get(conversationId);
    if (!memory) return;
    memory.lastUsedAt = now;
    this.moveToEnd(conversationId, memory);
  }

  async admission(owner: string, conversationId: string, key: string): Promise<Admission> {
    const usage = this.owners.get(owner);
    const memory = this.memories.get(conversationId);
    return {
      ownerBytes: usage?.bytes ?? 0,
      ownerConversations: usage?.conversations ?? 0,
      exists: memory !== undefined,
      entryBytes: entryBytes(key, memory?.values.get(key)),
    };
  }

  async charge(owner: string, bytes: number, conversations: number): Promise<void> {
    const usage = this.owners.get(owner) ?? { bytes: 0, conversations: 0 };
    usage.bytes += bytes;
    usage.conversations += conversations;
    if (usage.bytes === 0 && usage.conversations === 0) this.owners.delete(owner);
    else this.owners.set(owner, usage);
  }

  private use(conversationId: string, memory: Memory, key: string, now: number): void {
    memory.tick += 1;
    memory.uses.set(key, memory.tick);
    memory.touch += 1;
    memory.lastUsedAt = now;
    this.moveToEnd(conversationId, memory);
  }

  /** Keeps the map least recently used first. */
  private moveToEnd(conversationId: string, memory: Memory): void {
    this.memories.delete(conversationId);
    this.memories.set(conversationId, memory);
  }
}
