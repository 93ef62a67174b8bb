import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import { RedisScript } from '../../connections/redis/redis-script.js';
import type {
  Admission,
  BackendSnapshot,
  WorkingMemoryBackend,
  WriteOutcome,
  WriteRequest,
} from './working-memory-backend.interface.js';

/** KEYS: values, lru, meta. ARGV: key, touch (1/0), now. Returns {json or '', found, touch}. */
const READ = new RedisScript(`
local json = redis.call('HGET', KEYS[1], ARGV[1])
if json and ARGV[2] == '1' then
  local tick = redis.call('HINCRBY', KEYS[3], 'tick', 1)
  redis.call('ZADD', KEYS[2], tick, ARGV[1])
  redis.call('HINCRBY', KEYS[3], 'touch', 1)
  redis.call('HSET', KEYS[3], 'last', ARGV[3])
end
local touch = tonumber(redis.call('HGET', KEYS[3], 'touch') or '0')
if json then return {json, 1, touch} end
return {'', 0, touch}
`);

/**
 * KEYS: values, lru, meta. ARGV: key, json, cap, soft cap, evict (1/0), target, expected touch ('' =
 * any), now, n, then n pairs of (key, json) written along (folded rings), then protected prefixes.
 * An entry's size is its key's bytes plus its value's. Decides the caps and the evictions, then
 * applies everything or nothing. Evictions go in chunks (Lua's `unpack` is bounded by its stack).
 * Returns {'ok', size, crossedSoftCap, {evicted…}, previous size, created (1/0)} |
 * {'overflow', attempted} | {'conflict'}.
 */
const WRITE = new RedisScript(`
local created = redis.call('EXISTS', KEYS[3]) == 0
local touch = tonumber(redis.call('HGET', KEYS[3], 'touch') or '0')
if ARGV[7] ~= '' and tonumber(ARGV[7]) ~= touch then return {'conflict'} end
local written, order = {[ARGV[1]] = ARGV[2]}, {ARGV[1]}
local n = tonumber(ARGV[9])
for i = 0, n - 1 do
  local k = ARGV[10 + 2 * i]
  written[k] = ARGV[11 + 2 * i]
  order[#order + 1] = k
end
local function bytes(k)
  local len = redis.call('HSTRLEN', KEYS[1], k)
  if len == 0 then return 0 end
  return len + #k
end
local size = tonumber(redis.call('HGET', KEYS[3], 'size') or '0')
local previous = size
for _, k in ipairs(order) do size = size - bytes(k) + #k + #written[k] end
local crossed = size > tonumber(ARGV[4])
local evicted = {}
if crossed and ARGV[5] == '1' then
  local target = tonumber(ARGV[6])
  for _, k in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if size <= target then break end
    local keep = written[k] ~= nil
    for p = 10 + 2 * n, #ARGV do
      if not keep and string.sub(k, 1, #ARGV[p]) == ARGV[p] then keep = true end
    end
    if not keep then
      size = size - bytes(k)
      evicted[#evicted + 1] = k
    end
  end
end
if size > tonumber(ARGV[3]) then return {'overflow', size} end
for i = 1, #evicted, 1000 do
  local last = math.min(i + 999, #evicted)
  redis.call('HDEL', KEYS[1], unpack(evicted, i, last))
  redis.call('ZREM', KEYS[2], unpack(evicted, i, last))
end
for _, k in ipairs(order) do redis.call('HSET', KEYS[1], k, written[k]) end
for i = 2, #order do
  if not redis.call('ZSCORE', KEYS[2], order[i]) then
    redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], 'tick', 1), order[i])
  end
end
local tick = redis.call('HINCRBY', KEYS[3], 'tick', 1)
redis.call('ZADD', KEYS[2], tick, ARGV[1])
redis.call('HINCRBY', KEYS[3], 'touch', 1)
redis.call('HSET', KEYS[3], 'size', size, 'last', ARGV[8])
return {'ok', size, crossed and 1 or 0, evicted, previous, created and 1 or 0}
`);

/** KEYS: values, lru, meta. ARGV: key, now. Returns the bytes freed. */
const REMOVE = new RedisScript(`
local bytes = redis.call('HSTRLEN', KEYS[1], ARGV[1]) + #ARGV[1]
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'size', -bytes)
redis.call('HINCRBY', KEYS[3], 'touch', 1)
redis.call('HSET', KEYS[3], 'last', ARGV[2])
return bytes
`);

/** KEYS: values, lru, meta. ARGV: touch. Deletes the memory iff its use counter is still ARGV[1]. */
const DELETE_IF_UNTOUCHED = new RedisScript(`
if tonumber(redis.call('HGET', KEYS[3], 'touch') or '-1') ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
`);

/** KEYS: an owner's usage hash. ARGV: bytes, conversations (deltas). Deletes the hash at zero. */
const CHARGE = new RedisScript(`
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', ARGV[1])
local conversations = redis.call('HINCRBY', KEYS[1], 'conversations', ARGV[2])
if bytes <= 0 and conversations <= 0 then redis.call('DEL', KEYS[1]) end
return 1
`);

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

  async remove(conversationId: string, key: string, now: number): Promise<number> {
    const [freed] = (await new RedisScriptPipeline(this.client)
      .script(REMOVE, this.slotKeys(conversationId), [key, now])
      .command('zadd', this.idleKey(), 'XX', now, conversationId)
      .exec()) as [number];
    return Number(freed);
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
