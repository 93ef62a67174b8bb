import { RedisScript } from '../../connections/redis/redis-script.js';

/**
 * The text index of one entity on Redis, kept by the same scripts that write its records:
 * - per word, a hash (key `<base>w:<word>`) of the records holding it: record key → `tf:length`;
 * - a hash of indexed records (KEYS `docs`): record key → `length text` (the indexed text as it
 *   was saved: its words in order, repeats included; rows indexed before 2026-12-05 hold their
 *   distinct words instead, which the scripts read the same way);
 * - a hash of totals (KEYS `totals`): `n` records and `words` in all (BM25's average length).
 * Every key starts with the entity's hash-tagged base, so they share its cluster slot.
 *
 * This Lua is prepended to the scripts that change records. They change the index as one batch:
 * `openIndex(docs, totals, base, keys)` reads the stored docs of the keys a script may change (one
 * `HMGET` per 900), `setText(index, key, entry)` records a row's new entry (`<length> <words>` as
 * the docs hash stores it, made by the client; `''`: none, e.g. a tombstone), and
 * `flushIndex(index)` writes what changed: a row whose entry is as stored costs one comparison of
 * two interned strings; otherwise only its words are written, gathered per word across the batch
 * (one `HDEL` of the words it no longer holds, then one `HSET`, per word and 900 records, however
 * many rows hold it), its docs entry and the totals once per batch. The words' changes are gathered
 * as the commands' argument lists themselves (a row's words are read with one pattern that skips
 * the count, and a word's repeat in a row is found at the end of its list): no table per row, none
 * made again to send. `setText` takes each key once per script (every caller's keys are distinct).
 * `each(command, key, items, width)` sends a long argument list in chunks; `writeHash(key,
 * changes)` sets each field of `changes` whose value is a string and deletes each whose value is
 * `false`.
 */
export const TEXT_INDEX_LUA = `
local function each(command, key, items, width)
  local chunk = 900 * width
  for i = 1, #items, chunk do
    redis.call(command, key, unpack(items, i, math.min(i + chunk - 1, #items)))
  end
end
local function writeHash(key, changes)
  local set, unset = {}, {}
  for field, value in pairs(changes) do
    if value then
      set[#set + 1] = field
      set[#set + 1] = value
    else
      unset[#unset + 1] = field
    end
  end
  each('HSET', key, set, 2)
  each('HDEL', key, unset, 1)
end
local function openIndex(docs, totals, base, keys)
  local current = {}
  -- An entity with no indexed text (e.g. a store told to index none) has nothing to read.
  if redis.call('EXISTS', docs) == 0 then keys = {} end
  for i = 1, #keys, 900 do
    local part = redis.call('HMGET', docs, unpack(keys, i, math.min(i + 899, #keys)))
    for j = 1, #part do
      if part[j] then current[keys[i + j - 1]] = part[j] end
    end
  end
  return { docs = docs, totals = totals, base = base, current = current, docSets = {},
    docUnsets = {}, sets = {}, unsets = {}, n = 0, length = 0 }
end
-- Records the row's new entry. A key is set once per batch (every caller's keys are distinct):
-- the row's words are found at the end of their lists by its key.
local function setText(index, key, entry)
  local old = index.current[key]
  if entry == '' then entry = nil end
  if old == entry then return end
  local sets = index.sets
  if entry then
    local length = string.match(entry, '^%d+')
    local once = '1:' .. length
    -- The first token is the word count: every word follows a space. Most words occur once in a
    -- row and take the row's one posting text; a repeat finds this row's posting at its list's end.
    for word in string.gmatch(entry, ' (%S+)') do
      local list = sets[word]
      if not list then
        sets[word] = { key, once }
      else
        local n = #list
        if list[n - 1] == key then
          list[n] = (tonumber(string.match(list[n], '^%d+')) + 1) .. ':' .. length
        else
          list[n + 1] = key
          list[n + 2] = once
        end
      end
    end
    index.n = index.n + 1
    index.length = index.length + tonumber(length)
  end
  if old then
    local unsets = index.unsets
    -- A word the new entry keeps is overwritten by its set, not deleted first (a hash this record
    -- alone holds would be deleted and made again). A repeated word deletes its field twice,
    -- which HDEL takes.
    for word in string.gmatch(old, ' (%S+)') do
      local kept = sets[word]
      if not (entry and kept and kept[#kept - 1] == key) then
        local list = unsets[word]
        if list then list[#list + 1] = key else unsets[word] = { key } end
      end
    end
    index.n = index.n - 1
    index.length = index.length - tonumber(string.match(old, '^%d+'))
  end
  index.current[key] = entry
  if entry then
    local docSets = index.docSets
    docSets[#docSets + 1] = key
    docSets[#docSets + 1] = entry
  else
    index.docUnsets[#index.docUnsets + 1] = key
  end
end
local function flushIndex(index)
  local base, sets = index.base, index.sets
  -- Deletions first, of the rows that no longer hold the word; then the sets.
  for word, keys in pairs(index.unsets) do each('HDEL', base .. word, keys, 1) end
  for word, postings in pairs(sets) do each('HSET', base .. word, postings, 2) end
  each('HSET', index.docs, index.docSets, 2)
  each('HDEL', index.docs, index.docUnsets, 1)
  if index.n ~= 0 then redis.call('HINCRBY', index.totals, 'n', index.n) end
  if index.length ~= 0 then redis.call('HINCRBY', index.totals, 'words', index.length) end
end
`;

/**
 * KEYS: records hash, docs, totals. ARGV: word base, now, limit, prefix, updatedFrom, updatedTo,
 * posting budget, then the query's words. BM25 (k1 1.2, b 0.75) with a bounded cost: the words are
 * taken rarest first, and a word's whole posting hash is read only while the postings read stay
 * within the budget; a word beyond it only adds its score to the records already found (`HMGET`),
 * or, when none is yet, gives a sample of about the remaining budget (`HSCAN`). So a query reads at
 * most about budget + words × found postings, whatever the entity's size. Then the best 2 × limit
 * candidates (ties in byte order of key) are read and kept while live and within the filters; only
 * when that leaves fewer than `limit` are all candidates sorted and read in pages. Returns key,
 * record, score (text) per hit.
 */
export const RECALL = new RedisScript(`
local base, now, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local prefix, from, to, budget = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local n = tonumber(redis.call('HGET', KEYS[3], 'n') or '0')
if n <= 0 then return {} end
local average = tonumber(redis.call('HGET', KEYS[3], 'words') or '0') / n
local terms = {}
for i = 8, #ARGV do
  local key = base .. ARGV[i]
  local df = redis.call('HLEN', key)
  if df > 0 then terms[#terms + 1] = { key = key, df = df } end
end
table.sort(terms, function(a, b) return a.df < b.df end)
local scores, found, read = {}, {}, 0
local function add(doc, posting, idf)
  local tf, length = string.match(posting, '^(%d+):(%d+)$')
  tf, length = tonumber(tf), tonumber(length)
  local s = idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
  if scores[doc] then scores[doc] = scores[doc] + s
  else scores[doc] = s; found[#found + 1] = doc end
end
for _, term in ipairs(terms) do
  local idf = math.log(1 + (n - term.df + 0.5) / (term.df + 0.5))
  if read + term.df <= budget then
    local all = redis.call('HGETALL', term.key)
    for i = 1, #all, 2 do add(all[i], all[i + 1], idf) end
    read = read + term.df
  elseif #found > 0 then
    local known = {}
    for i = 1, #found do known[i] = found[i] end
    for i = 1, #known, 1000 do
      local chunk = { unpack(known, i, math.min(i + 999, #known)) }
      local postings = redis.call('HMGET', term.key, unpack(chunk))
      for j = 1, #chunk do if postings[j] then add(chunk[j], postings[j], idf) end end
    end
  else
    local cursor = '0'
    repeat
      local page = redis.call('HSCAN', term.key, cursor, 'COUNT', 500)
      cursor = page[1]
      for i = 1, #page[2], 2 do add(page[2][i], page[2][i + 1], idf) end
    until cursor == '0' or #found >= budget - read
    read = read + #found
  end
end
local function before(a, b)
  if scores[a] ~= scores[b] then return scores[a] > scores[b] end
  local length = math.min(#a, #b)
  for i = 1, length do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
-- The best few first (no filter usually drops any): a bounded insertion, not a sort of them all.
local function best(n)
  local kept = {}
  for _, doc in ipairs(found) do
    if #kept < n or before(doc, kept[#kept]) then
      if #kept == n then kept[n] = nil end
      local i = #kept
      while i >= 1 and before(doc, kept[i]) do
        kept[i + 1] = kept[i]
        i = i - 1
      end
      kept[i + 1] = doc
    end
  end
  return kept
end
local function collect(ordered)
  local out, at = {}, 1
  while at <= #ordered and #out < limit * 3 do
    local page = { unpack(ordered, at, math.min(at + math.max(limit * 2, 50) - 1, #ordered)) }
    at = at + #page
    local records = redis.call('HMGET', KEYS[1], unpack(page))
    for j = 1, #page do
      local record, key = records[j], page[j]
      if record and #out < limit * 3 and string.sub(key, 1, #prefix) == prefix then
        local updated, expires, valueAt = string.match(record, '^%d+:(%d+):(%d+):()')
        updated = tonumber(updated)
        if valueAt <= #record and tonumber(expires) > now and updated >= from and updated < to then
          out[#out + 1] = key
          out[#out + 1] = record
          out[#out + 1] = string.format('%.17g', scores[key])
        end
      end
    end
  end
  return out
end
local few = best(math.max(limit * 2, 20))
local out = collect(few)
if #out < limit * 3 and #few < #found then
  table.sort(found, before)
  out = collect(found)
end
return out
`);
