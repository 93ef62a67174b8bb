import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import {
  CHARGE,
  DELETE_IF_UNTOUCHED,
  DROP,
  READ,
  REMOVE,
  WRITE,
} from './redis.working-memory.scripts.js';
import type {
  Admission,
  BackendSnapshot,
  WorkingMemoryBackend,
  WriteOutcome,
  WriteRequest,
} from './working-memory-backend.interface.js';

/**
 * Working memory on Redis. Per conversation (hash-tagged with a digest of its id): a hash of values, a
 * sorted set of keys by use (LRU), and a meta hash (size, use counter, last use). Every operation is
 * one Lua script. Idle conversations are found through one sorted set of last-use times that the
 * sweeper reads — not key expiry (Redis deletes expired keys lazily and its expiry events are
 * lossy, and the on-expire hook must see the data first).
 */
export class RedisWorkingMemoryBackend implements WorkingMemoryBackend {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = 'agent-memory:working:',
  ) {}

  async read(
    conversationId: string,
    key: string,
    touch: boolean,
    now: number,
  ): Promise<{ json?: string; touch: number }> {
    const pipeline = new RedisScriptPipeline(this.client).script(
      READ,
      this.slotKeys(conversationId),
      [key, touch ? 1 : 0, now],
    );
    if (touch) pipeline.command('zadd', this.idleKey(), 'XX', now, conversationId);
    const [[json, found, counter]] = (await pipeline.exec()) as [[string, number, number]];
    return { ...(found === 1 ? { json } : {}), touch: counter };
  }

  async write(conversationId: string, request: WriteRequest): Promise<WriteOutcome> {
    const result = (await WRITE.run(this.client, this.slotKeys(conversationId), [
      request.key,
      request.json,
      request.limits.capBytes,
      request.limits.softCapBytes,
      request.eviction ? 1 : 0,
      request.eviction?.targetBytes ?? 0,
      request.expectedTouch ?? '',
      request.now,
      request.also?.length ?? 0,
      ...(request.also ?? []).flatMap(({ key, json }) => [key, json]),
      ...(request.eviction?.protectedPrefixes ?? []),
    ])) as [string, number?, number?, string[]?, number?, number?];
    const [status, ...rest] = result;
    if (status === 'conflict') return { status };
    if (status === 'overflow') return { status, attemptedBytes: Number(rest[0]) };
    await this.client.zadd(this.idleKey(), request.now, conversationId);
    return {
      status: 'ok',
      sizeBytes: Number(rest[0]),
      crossedSoftCap: rest[1] === 1,
      evicted: (rest[2] ?? []).map(String),
      previousSizeBytes: Number(rest[3] ?? 0),
      created: rest[4] === 1,
    };
  }

  async remove(
    conversationId: string,
    key: string,
    now: number,
  ): Promise<{ freedBytes: number; emptied: boolean }> {
    const [[freed, emptied]] = (await new RedisScriptPipeline(this.client)
      .script(REMOVE, this.slotKeys(conversationId), [key, now])
      .command('zadd', this.idleKey(), 'XX', now, conversationId)
      .exec()) as [[number, number]];
    if (emptied === 1) await this.client.zrem(this.idleKey(), conversationId);
    return { freedBytes: Number(freed), emptied: emptied === 1 };
  }

  async drop(conversationId: string): Promise<number | undefined> {
    const size = Number(await DROP.run(this.client, this.slotKeys(conversationId), []));
    await this.client.zrem(this.idleKey(), conversationId);
    return size < 0 ? undefined : size;
  }

  async postpone(conversationId: string, now: number): Promise<void> {
    await this.client.zadd(this.idleKey(), 'XX', now, conversationId);
  }

  keys(conversationId: string): Promise<string[]> {
    return this.client.zrange(this.lruKey(conversationId), 0, -1);
  }

  async size(conversationId: string): Promise<number> {
    return Number((await this.client.hget(this.metaKey(conversationId), 'size')) ?? 0);
  }

  idle(before: number, limit: number): Promise<string[]> {
    return this.client.zrangebyscore(this.idleKey(), '-inf', before, 'LIMIT', 0, limit);
  }

  async snapshot(conversationId: string): Promise<BackendSnapshot | undefined> {
    const [lru, values, meta] = (await this.client
      .pipeline()
      .zrange(this.lruKey(conversationId), 0, -1)
      .hgetall(this.valuesKey(conversationId))
      .hgetall(this.metaKey(conversationId))
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [string[], Record<string, string>, Record<string, string>];
    if (meta.touch === undefined) {
      await this.client.zrem(this.idleKey(), conversationId);
      return undefined;
    }
    return {
      entries: lru.filter((key) => values[key] !== undefined).map((key) => [key, values[key]!]),
      sizeBytes: Number(meta.size ?? 0),
      touch: Number(meta.touch),
      lastUsedAt: Number(meta.last ?? 0),
    };
  }

  async deleteIfUntouched(conversationId: string, touch: number): Promise<boolean> {
    const deleted =
      (await DELETE_IF_UNTOUCHED.run(this.client, this.slotKeys(conversationId), [touch])) === 1;
    if (deleted) await this.client.zrem(this.idleKey(), conversationId);
    return deleted;
  }

  /**
   * The owner's usage (a hash of its own) and the entry's size: two reads, sent together. Usage is
   * checked before a write and charged after it, so concurrent writes of one owner can pass the
   * quota by what they write together (each within the per-conversation cap).
   */
  async admission(owner: string, conversationId: string, key: string): Promise<Admission> {
    const [usage, entry, exists] = (await new RedisScriptPipeline(this.client)
      .command('hmget', this.ownerKey(owner), 'bytes', 'conversations')
      .command('hstrlen', this.valuesKey(conversationId), key)
      .command('exists', this.metaKey(conversationId))
      .exec()) as [[string | null, string | null], number, number];
    return {
      ownerBytes: Number(usage[0] ?? 0),
      ownerConversations: Number(usage[1] ?? 0),
      exists: exists === 1,
      entryBytes: entry === 0 ? 0 : entry + Buffer.byteLength(key),
    };
  }

  async charge(owner: string, bytes: number, conversations: number): Promise<void> {
    await CHARGE.run(this.client, [this.ownerKey(owner)], [bytes, conversations]);
  }

  private ownerKey(owner: string): string {
    return `${this.keyPrefix}owner:${taggedRedisId(owner)}`;
  }

  private valuesKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:values`;
  }

  private lruKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:lru`;
  }

  private metaKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:meta`;
  }

  private slotKeys(conversationId: string): [string, string, string] {
    return [
      this.valuesKey(conversationId),
      this.lruKey(conversationId),
      this.metaKey(conversationId),
    ];
  }

  private idleKey(): string {
    return `${this.keyPrefix}idle`;
  }
}
