import type { Redis } from 'ioredis';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import { RedisScript } from '../../connections/redis/redis-script.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';
import { NEVER_EXPIRES, TOMBSTONE } from './sql-row-format.js';
import { DEFAULT_LONGTERM_REDIS_PREFIX, longtermRedisKeys } from './redis-keys.js';

/**
 * A record is one hash field: `seq:updatedAt:expiresAt:value` (value last; an empty value is a
 * tombstone; expiresAt 2^53 − 1 means never). Numbers stay strings end to end, so no precision is
 * lost in Lua.
 *
 * KEYS: records hash, live-keys sorted set (all scores 0: ZRANGEBYLEX order is byte order), expiry
 * sorted set (only rows that expire), erasure mark (a seq every write must exceed, if set). ARGV:
 * now, never, then the batch packed as one JSON array of
 * strings, five per row: key, seq, updatedAt, expiresAt, value (one argument decoded by cjson costs
 * far less, on both ends, than five thousand). Reads every stored row at once, decides each with the
 * seq guard, then writes in a few batched commands. Returns one '1' (applied) or '0' per row.
 */
const WRITE = new RedisScript(`
local now, never = tonumber(ARGV[1]), ARGV[2]
local erased = tonumber(redis.call('GET', KEYS[4]) or '-1')
local batch = cjson.decode(ARGV[3])
local n = #batch / 5
local function each(command, key, items, width)
  local chunk = 900 * width
  for i = 1, #items, chunk do
    redis.call(command, key, unpack(items, i, math.min(i + chunk - 1, #items)))
  end
end
local fields = {}
for i = 1, n do fields[i] = batch[i * 5 - 4] end
local stored = {}
for i = 1, n, 900 do
  local part = redis.call('HMGET', KEYS[1], unpack(fields, i, math.min(i + 899, n)))
  for j = 1, #part do stored[i + j - 1] = part[j] end
end
local applied, records, live, dead, expiring, lasting = {}, {}, {}, {}, {}, {}
for i = 1, n do
  local at = i * 5 - 4
  local key, seq, expires, value = batch[at], batch[at + 1], batch[at + 3], batch[at + 4]
  local ok, previous, wasLive = tonumber(seq) > erased, nil, false
  local record = stored[i]
  if record and ok then
    local storedSeq, storedExpiry, valueAt = string.match(record, '^(%d+):%d+:(%d+):()')
    previous = storedExpiry
    wasLive = valueAt <= #record
    ok = tonumber(seq) >= tonumber(storedSeq) or tonumber(previous) <= now
  end
  if ok then
    records[#records + 1] = key
    records[#records + 1] = seq .. ':' .. batch[at + 2] .. ':' .. expires .. ':' .. value
    if value == '' then
      if wasLive then dead[#dead + 1] = key end
    elseif not wasLive then
      live[#live + 1] = 0
      live[#live + 1] = key
    end
    if expires ~= never then
      expiring[#expiring + 1] = expires
      expiring[#expiring + 1] = key
    elseif previous and previous ~= never then
      lasting[#lasting + 1] = key
    end
    applied[i] = '1'
  else
    applied[i] = '0'
  end
end
each('HSET', KEYS[1], records, 2)
each('ZADD', KEYS[2], live, 2)
each('ZREM', KEYS[2], dead, 1)
each('ZADD', KEYS[3], expiring, 2)
each('ZREM', KEYS[3], lasting, 1)
return table.concat(applied)
`);

/**
 * KEYS: records hash, live-keys set. ARGV: lower ('[' + prefix), upper ('(' + bound, or '+'), now,
 * limit. Walks the range in pages, skipping expired rows, until `limit` live rows are found.
 */
const SEARCH = new RedisScript(`
local now, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local out, offset, page = {}, 0, math.max(limit, 64)
while #out < limit * 2 do
  local keys = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', offset, page)
  if #keys == 0 then break end
  local records = redis.call('HMGET', KEYS[1], unpack(keys))
  for j = 1, #keys do
    local record = records[j]
    if record then
      local e = string.match(record, '^%d+:%d+:(%d+):')
      if tonumber(e) > now and #out < limit * 2 then
        out[#out + 1] = keys[j]
        out[#out + 1] = record
      end
    end
  end
  if #keys < page then break end
  offset = offset + page
end
return out
`);

/**
 * KEYS: records hash, live-keys set, expiry set, erasure mark, counter. Erases the entity: the mark
 * becomes the highest of the old mark, the counter and every stored seq (tombstones included); the
 * counter is raised to it. Numbers stay below 2^53, exact in Lua's doubles.
 */
const ERASE = new RedisScript(`
local mark = tonumber(redis.call('GET', KEYS[4]) or '0')
local counter = tonumber(redis.call('GET', KEYS[5]) or '0')
if counter > mark then mark = counter end
for _, record in ipairs(redis.call('HVALS', KEYS[1])) do
  local seq = tonumber(string.match(record, '^(%d+):'))
  if seq > mark then mark = seq end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[4], string.format('%.0f', mark))
if counter < mark then redis.call('SET', KEYS[5], string.format('%.0f', mark)) end
return 1
`);

/** KEYS: records hash, live-keys set, expiry set. ARGV: now, limit. Removes expired rows. */
const SWEEP = new RedisScript(`
local keys = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, key in ipairs(keys) do
  redis.call('HDEL', KEYS[1], key)
  redis.call('ZREM', KEYS[2], key)
  redis.call('ZREM', KEYS[3], key)
end
return #keys
`);

/**
 * Long-term store on Redis. Per entity (keys hash-tagged with a digest of the entity id, so each
 * script's keys share a cluster slot whatever the id holds): a hash of records, a sorted set of live keys (search is `ZRANGEBYLEX`: byte order,
 * literal prefix, no `KEYS`/`HSCAN`) and a sorted set by expiry. The seq guard runs in one Lua script
 * per entity; a batch over several entities is one pipeline (one round trip). A set of entities
 * feeds the sweeper.
 */
export class RedisLongtermStore extends BaseLongtermStore {
  constructor(
    private readonly client: Redis,
    private readonly keyPrefix = DEFAULT_LONGTERM_REDIS_PREFIX,
    settings?: LongtermStoreSettings,
  ) {
    super(settings);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const byEntity = new Map<string, number[]>();
    rows.forEach((row, index) => {
      const indexes = byEntity.get(row.entityId);
      if (indexes) indexes.push(index);
      else byEntity.set(row.entityId, [index]);
    });
    const pipeline = new RedisScriptPipeline(this.client);
    for (const [entityId, indexes] of byEntity) {
      const packed: string[] = [];
      for (const index of indexes) {
        const row = rows[index]!;
        packed.push(
          row.key,
          String(row.seq),
          String(row.updatedAt),
          String(row.expiresAt ?? NEVER_EXPIRES),
          row.value ?? TOMBSTONE,
        );
      }
      pipeline
        .script(WRITE, this.writeKeys(entityId), [now, NEVER_EXPIRES, JSON.stringify(packed)])
        .command('sadd', this.entitiesKey(), entityId);
    }
    const results = await pipeline.exec();
    const applied: boolean[] = new Array(rows.length);
    [...byEntity.values()].forEach((indexes, n) => {
      const verdicts = results[n * 2] as string;
      indexes.forEach((index, i) => (applied[index] = verdicts[i] === '1'));
    });
    return applied;
  }

  protected async readOne(entityId: string, key: string, now: number): Promise<StoredRow | null> {
    const record = await this.client.hget(this.entityKeys(entityId).records, key);
    const row = record === null ? null : parse(entityId, key, record);
    return row && row.value !== TOMBSTONE && (row.expiresAt === null || row.expiresAt > now)
      ? row
      : null;
  }

  protected async readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]> {
    const flat = (await SEARCH.run(this.client, this.rowKeys(entityId).slice(0, 2), [
      `[${lower}`,
      upper === undefined ? '+' : `(${upper}`,
      now,
      limit,
    ])) as string[];
    const rows: StoredRow[] = [];
    for (let i = 0; i < flat.length && rows.length < limit; i += 2)
      rows.push(parse(entityId, flat[i]!, flat[i + 1]!));
    return rows;
  }

  protected async eraseEntity(entityId: string): Promise<void> {
    const keys = this.entityKeys(entityId);
    await ERASE.run(this.client, [...this.rowKeys(entityId), keys.erased, keys.counter], []);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    let removed = 0;
    let cursor = '0';
    do {
      const [next, entities] = await this.client.sscan(this.entitiesKey(), cursor, 'COUNT', 100);
      cursor = next;
      for (const entityId of entities) {
        if (removed >= limit) return removed;
        removed += (await SWEEP.run(this.client, this.rowKeys(entityId), [
          now,
          limit - removed,
        ])) as number;
        if ((await this.client.exists(this.entityKeys(entityId).records)) === 0)
          await this.client.srem(this.entitiesKey(), entityId);
      }
    } while (cursor !== '0');
    return removed;
  }

  private entityKeys(entityId: string) {
    return longtermRedisKeys(this.keyPrefix, entityId);
  }

  /** Records hash, live-keys set, expiry set. */
  private rowKeys(entityId: string): [string, string, string] {
    const keys = this.entityKeys(entityId);
    return [keys.records, keys.live, keys.expiry];
  }

  /** The row keys and the erasure mark. */
  private writeKeys(entityId: string): string[] {
    return [...this.rowKeys(entityId), this.entityKeys(entityId).erased];
  }

  private entitiesKey(): string {
    return `${this.keyPrefix}entities`;
  }
}

function parse(entityId: string, key: string, record: string): StoredRow {
  const match = /^(\d+):(\d+):(\d+):([\s\S]*)$/.exec(record)!;
  const expiresAt = Number(match[3]);
  return {
    entityId,
    key,
    value: match[4]!,
    seq: Number(match[1]),
    updatedAt: Number(match[2]),
    expiresAt: expiresAt >= NEVER_EXPIRES ? null : expiresAt,
  };
}
