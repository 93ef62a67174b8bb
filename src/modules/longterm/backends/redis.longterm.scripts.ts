import { RedisScript } from '../../connections/redis/redis-script.js';
import { TEXT_INDEX_LUA } from './redis.text-index.scripts.js';

/**
 * A record is one hash field: `seq:updatedAt:expiresAt:value` (value last; an empty value is a
 * tombstone; expiresAt 2^53 − 1 means never). Numbers stay strings end to end, so no precision is
 * lost in Lua.
 *
 * KEYS: records hash, live-keys sorted set (all scores 0: ZRANGEBYLEX order is byte order), expiry
 * sorted set (only rows that expire), erasure mark (a seq every write must exceed, if set), the text
 * index's docs and totals, the vectors hash. ARGV: now, never, the text index's word base, then the
 * batch packed as JSON arrays of strings (one or more parts, in order), seven per row: key, seq,
 * updatedAt, expiresAt, value, index entry (`<word count> <words>` as the docs hash holds it, or
 * ''), vector ('' or `<model length>:<model><base64 float32>`) — a few arguments decoded by cjson
 * cost far less, on both ends, than seven thousand. A row that applies replaces its key's entry in
 * the text index (an entry as stored costs nothing; otherwise only its words, gathered per word
 * across the batch) and its vector. Reads every stored row and index entry at once, decides each
 * row with the seq guard, then writes in a few batched commands. Returns one '1'
 * (applied) or '0' per row.
 */
export const WRITE = new RedisScript(`${TEXT_INDEX_LUA}
local now, never, base = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local erased = tonumber(redis.call('GET', KEYS[4]) or '-1')
local parts, fields = {}, {}
for c = 4, #ARGV do
  local part = cjson.decode(ARGV[c])
  parts[#parts + 1] = part
  for at = 1, #part, 7 do fields[#fields + 1] = part[at] end
end
local n = #fields
local stored = {}
for i = 1, n, 900 do
  local part = redis.call('HMGET', KEYS[1], unpack(fields, i, math.min(i + 899, n)))
  for j = 1, #part do stored[i + j - 1] = part[j] end
end
local text = openIndex(KEYS[5], KEYS[6], base, fields)
-- A hash that does not exist holds no vector to delete.
local hadVectors = redis.call('EXISTS', KEYS[7]) == 1
local applied, records, live, dead, expiring, lasting = {}, {}, {}, {}, {}, {}
local vectors = {}
local i = 0
for _, batch in ipairs(parts) do
  for at = 1, #batch, 7 do
    i = i + 1
    local key, seq, expires, value = batch[at], batch[at + 1], batch[at + 3], batch[at + 4]
    local seqNumber = tonumber(seq)
    local ok, previous, wasLive = seqNumber > erased, nil, false
    local record = stored[i]
    if record and ok then
      local storedSeq, storedExpiry, valueAt = string.match(record, '^(%d+):%d+:(%d+):()')
      previous = storedExpiry
      wasLive = valueAt <= #record
      ok = seqNumber >= tonumber(storedSeq) or tonumber(previous) <= now
    end
    if ok then
      records[#records + 1] = key
      records[#records + 1] = seq .. ':' .. batch[at + 2] .. ':' .. expires .. ':' .. value
      setText(text, key, value ~= '' and batch[at + 5] or '')
      local vector = batch[at + 6]
      if vector ~= '' then vectors[key] = vector elseif hadVectors then vectors[key] = false end
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
end
each('HSET', KEYS[1], records, 2)
each('ZADD', KEYS[2], live, 2)
each('ZREM', KEYS[2], dead, 1)
each('ZADD', KEYS[3], expiring, 2)
each('ZREM', KEYS[3], lasting, 1)
flushIndex(text)
writeHash(KEYS[7], vectors)
return table.concat(applied)
`);

/**
 * KEYS: records hash, live-keys set. ARGV: lower ('[' + prefix), upper ('(' + bound, or '+'), now,
 * limit. Walks the range in pages, skipping expired rows, until `limit` live rows are found: the
 * first page is `limit` keys (all a search reads when none has expired), then pages double up to
 * 1,000 keys (Lua's `unpack` takes fewer than 8,000 values, which bounds one `HMGET`).
 */
export const SEARCH = new RedisScript(`
local now, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
local out, offset, page = {}, 0, limit
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
  page = math.min(math.max(page * 2, 64), 1000)
end
return out
`);

/**
 * KEYS: records hash, live-keys set, expiry set, erasure mark, counter, the text index's docs and
 * totals, the vectors hash. ARGV: the text index's word base. Erases the entity, its text index included: the mark
 * becomes the highest of the old mark, the counter and every stored seq (tombstones included); the
 * counter is raised to it. Numbers stay below 2^53, exact in Lua's doubles.
 */
export const ERASE = new RedisScript(`
local words = {}
for _, doc in ipairs(redis.call('HVALS', KEYS[6])) do
  for word in string.gmatch(string.match(doc, '^%d+ ?(.*)$'), '%S+') do words[ARGV[1] .. word] = true end
end
local batch = {}
for key in pairs(words) do
  batch[#batch + 1] = key
  if #batch == 500 then redis.call('DEL', unpack(batch)); batch = {} end
end
if #batch > 0 then redis.call('DEL', unpack(batch)) end
redis.call('DEL', KEYS[6], KEYS[7], KEYS[8])
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

/**
 * KEYS: records hash, live-keys set, expiry set, the text index's docs and totals, the vectors hash.
 * ARGV: now, limit, the text index's word base. Removes expired rows, their text and their vectors
 * (a few batched commands for all of them).
 */
export const SWEEP = new RedisScript(`${TEXT_INDEX_LUA}
local keys = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #keys == 0 then return 0 end
local text = openIndex(KEYS[4], KEYS[5], ARGV[3], keys)
for _, key in ipairs(keys) do setText(text, key, '') end
flushIndex(text)
each('HDEL', KEYS[6], keys, 1)
each('HDEL', KEYS[1], keys, 1)
each('ZREM', KEYS[2], keys, 1)
each('ZREM', KEYS[3], keys, 1)
return #keys
`);

/**
 * KEYS: records hash, vectors hash. ARGV: now, then per update: key, seq, value, packed vector.
 * Stores each vector iff its record is live and still holds that seq and value. Returns '1' (stored)
 * or '0' per update.
 */
export const SET_EMBEDDINGS = new RedisScript(`
local now, out = tonumber(ARGV[1]), {}
for i = 2, #ARGV, 4 do
  local record = redis.call('HGET', KEYS[1], ARGV[i])
  local ok = false
  if record then
    local seq, expires, valueAt = string.match(record, '^(%d+):%d+:(%d+):()')
    ok = seq == ARGV[i + 1] and tonumber(expires) > now and valueAt <= #record
      and string.sub(record, valueAt) == ARGV[i + 2]
  end
  if ok then redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 3]) end
  out[#out + 1] = ok and '1' or '0'
end
return table.concat(out)
`);
