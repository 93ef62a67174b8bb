import {
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

/** Process-local working memory (`backend: 'memory'`). Every operation is atomic (synchronous). */
export class InMemoryWorkingMemoryBackend implements WorkingMemoryBackend {
  private readonly memories = new Map<string, Memory>();

  async read(
    conversationId: string,
    key: string,
    touch: boolean,
    now: number,
  ): Promise<{ json?: string; touch: number }> {
    const memory = this.memories.get(conversationId);
    const json = memory?.values.get(key);
    if (memory && json !== undefined && touch) this.use(memory, key, now);
    return { json, touch: memory?.touch ?? 0 };
  }

  async write(conversationId: string, request: WriteRequest): Promise<WriteOutcome> {
    const memory = this.memories.get(conversationId) ?? {
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
    for (const key of evicted) {
      memory.values.delete(key);
      memory.uses.delete(key);
    }
    for (const { key, json } of written) {
      memory.values.set(key, json);
      if (!memory.uses.has(key)) memory.uses.set(key, ++memory.tick);
    }
    memory.size = size;
    this.memories.set(conversationId, memory);
    this.use(memory, request.key, request.now);
    return { status: 'ok', sizeBytes: size, evicted, crossedSoftCap };
  }

  async remove(conversationId: string, key: string, now: number): Promise<void> {
    const memory = this.memories.get(conversationId);
    if (!memory?.values.has(key)) return;
    memory.size -= entryBytes(key, memory.values.get(key));
    memory.values.delete(key);
    memory.uses.delete(key);
    memory.touch += 1;
    memory.lastUsedAt = now;
  }

  async keys(conversationId: string): Promise<string[]> {
    const uses = this.memories.get(conversationId)?.uses ?? new Map<string, number>();
    return [...uses.entries()].sort((a, b) => a[1] - b[1]).map(([key]) => key);
  }

  async size(conversationId: string): Promise<number> {
    return this.memories.get(conversationId)?.size ?? 0;
  }

  async idle(before: number, limit: number): Promise<string[]> {
    return [...this.memories.entries()]
      .filter(([, memory]) => memory.lastUsedAt <= before)
      .slice(0, limit)
      .map(([conversationId]) => conversationId);
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
    return true;
  }

  private use(memory: Memory, key: string, now: number): void {
    memory.tick += 1;
    memory.uses.set(key, memory.tick);
    memory.touch += 1;
    memory.lastUsedAt = now;
  }
}
