import { RedisScript } from '../../connections/redis/redis-script.js';

/**
 * A touch. KEYS: the namespace's sorted set, the conversation's details hash. ARGV: time,
 * conversation id, default title (`''`: none), preview (`''`: none). The time only moves forward; the
 * preview is set unless the time is older than the entry's; the title only when the hash has none
 * (`''` is a cleared title, which stays).
 */
export const TOUCH = new RedisScript(`
local current = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not current or tonumber(ARGV[1]) >= tonumber(current) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'p', ARGV[4]) end
end
if ARGV[3] ~= '' then redis.call('HSETNX', KEYS[2], 't', ARGV[3]) end
return 1
`);

/**
 * An update. KEYS: the sorted set, the details hash. ARGV: conversation id, the most keys, title
 * change (`-`: none, `=`: set to ARGV[4], `''` clearing it), the title, then pairs of a metadata
 * key and `s<value>` (set) or `d` (delete). Nil for a conversation the set does not hold;
 * `{0, keys}` when the merge would hold too many keys (nothing written); else
 * `{1, score, the hash's fields and values}`.
 */
export const UPDATE = new RedisScript(`
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return false end
local present = {}
local count = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
  if string.sub(field, 1, 2) == 'm:' then present[field] = true; count = count + 1 end
end
for i = 5, #ARGV, 2 do
  local field = 'm:' .. ARGV[i]
  local set = string.sub(ARGV[i + 1], 1, 1) == 's'
  if set and not present[field] then present[field] = true; count = count + 1 end
  if not set and present[field] then present[field] = nil; count = count - 1 end
end
if count > tonumber(ARGV[2]) then return {0, count} end
if ARGV[3] == '=' then redis.call('HSET', KEYS[2], 't', ARGV[4]) end
for i = 5, #ARGV, 2 do
  if string.sub(ARGV[i + 1], 1, 1) == 's' then
    redis.call('HSET', KEYS[2], 'm:' .. ARGV[i], string.sub(ARGV[i + 1], 2))
  else
    redis.call('HDEL', KEYS[2], 'm:' .. ARGV[i])
  end
end
return {1, score, redis.call('HGETALL', KEYS[2])}
`);
