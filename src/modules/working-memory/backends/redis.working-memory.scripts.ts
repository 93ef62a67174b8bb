import { RedisScript } from '../../connections/redis/redis-script.js';

/** KEYS: values, lru, meta. ARGV: key, touch (1/0), now. Returns {json or '', found, touch}. */
export const READ = new RedisScript(`
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
export const WRITE = new RedisScript(`
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

/**
 * KEYS: values, lru, meta. ARGV: key, now. Returns {bytes freed, emptied (1/0)}: removing the last
 * entry deletes the memory.
 */
export const REMOVE = new RedisScript(`
local bytes = redis.call('HSTRLEN', KEYS[1], ARGV[1]) + #ARGV[1]
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return {0, 0} end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  return {bytes, 1}
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'size', -bytes)
redis.call('HINCRBY', KEYS[3], 'touch', 1)
redis.call('HSET', KEYS[3], 'last', ARGV[2])
return {bytes, 0}
`);

/** KEYS: values, lru, meta. Deletes the memory; returns the bytes it held, or -1 if it had none. */
export const DROP = new RedisScript(`
if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
local size = tonumber(redis.call('HGET', KEYS[3], 'size') or '0')
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return size
`);

/** KEYS: values, lru, meta. ARGV: touch. Deletes the memory iff its use counter is still ARGV[1]. */
export const DELETE_IF_UNTOUCHED = new RedisScript(`
if tonumber(redis.call('HGET', KEYS[3], 'touch') or '-1') ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
`);

/**
 * KEYS: an owner's usage hash. ARGV: bytes, conversations (deltas). Deletes the hash only at exactly
 * zero: a release that lands before its write's charge leaves it below zero for a moment.
 */
export const CHARGE = new RedisScript(`
local bytes = redis.call('HINCRBY', KEYS[1], 'bytes', ARGV[1])
local conversations = redis.call('HINCRBY', KEYS[1], 'conversations', ARGV[2])
if bytes == 0 and conversations == 0 then redis.call('DEL', KEYS[1]) end
return 1
`);
