import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { taggedRedisId } from '../../src/modules/connections/redis/tagged-redis-id.js';
import { longtermRedisKeys } from '../../src/modules/longterm/backends/redis-keys.js';
import { NEVER_EXPIRES } from '../../src/modules/longterm/backends/sql-row-format.js';
import { prefixUpperBound } from '../../src/modules/longterm/validation/prefix-range.js';

/**
 * Raw-driver floors of the write-path benchmark. Each comes in two strengths:
 * - **plain**: the least a raw user writes (`INSERT` with a sequence, `RPUSH`, a blind `HSET`);
 * - **guarded**: hand-written with the raw driver but carrying the store's guarantees — idempotent
 *   ids, the version, one round trip and one commit per call, the seq guard — so the ratio against
 *   it is what the library's own layers cost. They stay a little lighter than the store: the
 *   guarded save skips the erasure-mark read and the expiry bookkeeping, the guarded search does not
 *   page on past expired rows (the benchmark has none), so they flatter the floor, not the library.
 * Every floor builds the message's id and JSON as the store must (a UUID, `JSON.stringify`).
 */

/** Appends one message to a conversation. */
export type AddFloor = (conversationId: string) => Promise<unknown>;

/** A message as the store writes it: a new id, and the JSON that holds it. */
export function floorMessage(i: number): { id: string; body: string } {
  const id = randomUUID();
  return { id, body: JSON.stringify({ id, role: 'user', content: messageText(i) }) };
}

/** The text of the `i`th benchmark message (library and floors write the same). */
export function messageText(i: number): string {
  return `benchmark message number ${i}, with a little text to make it typical`;
}

/** Plain PostgreSQL floor: one prepared `INSERT` with an in-process per-conversation sequence. */
export function postgresPlainAdd(db: pg.Pool | pg.Client): AddFloor {
  const sequences = new Map<string, number>();
  let i = 0;
  return (c) => {
    const seq = (sequences.get(c) ?? 0) + 1;
    sequences.set(c, seq);
    const { id, body } = floorMessage((i += 1));
    return db.query({
      name: 'floor_plain_insert',
      text: `INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES ($1, $2, $3, 'user', $4)`,
      values: [c, seq, id, body],
    });
  };
}

/**
 * A careful user's one-message append in PL/pgSQL: the conversation's advisory lock, the current
 * version, the id probe, the optional expected version, the insert — one round trip, one commit.
 */
const GUARDED_APPEND = `CREATE OR REPLACE FUNCTION bench_floor_append(
    p_conversation_id text, p_id text, p_body text, p_expected bigint) RETURNS bigint
  LANGUAGE plpgsql AS $fn$
  DECLARE v bigint;
  BEGIN
    PERFORM pg_advisory_xact_lock(1650551410, hashtext(p_conversation_id));
    SELECT coalesce(max(seq), 0) INTO v FROM agent_chat_messages WHERE conversation_id = p_conversation_id;
    PERFORM FROM agent_chat_messages WHERE conversation_id = p_conversation_id AND message_id = p_id;
    IF FOUND THEN RETURN v; END IF;
    IF p_expected IS NOT NULL AND p_expected <> v THEN RAISE EXCEPTION 'version conflict'; END IF;
    INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body)
      VALUES (p_conversation_id, v + 1, p_id, 'user', p_body);
    RETURN v + 1;
  END $fn$`;

/** Installs the guarded PostgreSQL floor's function. */
export async function installPostgresGuardedAdd(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(GUARDED_APPEND);
  } finally {
    await client.end();
  }
}

/** Guarded PostgreSQL floor: the hand-written function above, as a prepared statement. */
export function postgresGuardedAdd(db: pg.Pool | pg.Client): AddFloor {
  let i = 0;
  return (c) => {
    const { id, body } = floorMessage((i += 1));
    return db.query({
      name: 'floor_guarded_append',
      text: 'SELECT bench_floor_append($1, $2, $3, $4)',
      values: [c, id, body, null],
    });
  };
}

/** The store's list and id-hash keys of a conversation (its own key layout). */
export function chatRedisKeys(prefix: string, c: string): [string, string] {
  const base = `${prefix}${taggedRedisId(c)}`;
  return [`${base}:messages`, `${base}:ids`];
}

/** Plain Redis floor: one `RPUSH` on the store's list key. */
export function redisPlainAdd(client: Redis, prefix: string): AddFloor {
  const keys = new Map<string, string>();
  let i = 0;
  return (c) => {
    let key = keys.get(c);
    if (key === undefined) keys.set(c, (key = chatRedisKeys(prefix, c)[0]));
    return client.rpush(key, floorMessage((i += 1)).body);
  };
}

/** Guarded Redis floor: a hand-written script — `HSETNX` the id, then `RPUSH`; returns the version. */
export function redisGuardedAdd(client: Redis, prefix: string): AddFloor {
  const script = `if redis.call('HSETNX', KEYS[2], ARGV[1], 1) == 0 then return redis.call('LLEN', KEYS[1]) end
return redis.call('RPUSH', KEYS[1], ARGV[2])`;
  client.defineCommand('benchFloorAppend', { numberOfKeys: 2, lua: script });
  const keys = new Map<string, [string, string]>();
  const run = client as unknown as {
    benchFloorAppend(list: string, ids: string, id: string, body: string): Promise<number>;
  };
  let i = 0;
  return (c) => {
    let pair = keys.get(c);
    if (pair === undefined) keys.set(c, (pair = chatRedisKeys(prefix, c)));
    const { id, body } = floorMessage((i += 1));
    return run.benchFloorAppend(pair[0], pair[1], id, body);
  };
}

/** A long-term row as the bench writes it. */
export interface FloorRow {
  key: string;
  value: unknown;
  seq: number;
}

/** Plain Redis long-term floor: a pipeline of one `HSET` and one `ZADD` (no seq guard). */
export function redisPlainSave(client: Redis, prefix: string) {
  return (entityId: string, rows: FloorRow[]) => {
    const keys = longtermRedisKeys(prefix, entityId);
    const fields: string[] = [];
    const members: Array<string | number> = [];
    for (const row of rows) {
      fields.push(row.key, `${row.seq}:1:${NEVER_EXPIRES}:${JSON.stringify(row.value)}`);
      members.push(0, row.key);
    }
    return client
      .pipeline()
      .hset(keys.records, ...fields)
      .zadd(keys.live, ...members)
      .exec();
  };
}

/**
 * Guarded Redis long-term floor: values as canonical JSON (keys sorted at every level, by a plain
 * recursive copy), then a hand-written script with the seq guard — read the stored rows (`HMGET`),
 * keep the rows whose seq is not below the stored one, write them (`HSET`, `ZADD`); the batch packed
 * as one JSON argument (key, seq, record triples).
 */
export function redisGuardedSave(client: Redis, prefix: string) {
  client.defineCommand('benchFloorSave', {
    numberOfKeys: 2,
    lua: `local batch = cjson.decode(ARGV[1])
local n = #batch / 3
local fields = {}
for i = 1, n do fields[i] = batch[i * 3 - 2] end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local records, live = {}, {}
for i = 1, n do
  local s = stored[i]
  if not s or tonumber(batch[i * 3 - 1]) >= tonumber(string.match(s, '^(%d+):')) then
    records[#records + 1] = batch[i * 3 - 2]
    records[#records + 1] = batch[i * 3]
    if not s then live[#live + 1] = 0; live[#live + 1] = batch[i * 3 - 2] end
  end
end
if #records > 0 then redis.call('HSET', KEYS[1], unpack(records)) end
if #live > 0 then redis.call('ZADD', KEYS[2], unpack(live)) end
return #records / 2`,
  });
  const run = client as unknown as {
    benchFloorSave(records: string, live: string, packed: string): Promise<number>;
  };
  return (entityId: string, rows: FloorRow[]) => {
    const keys = longtermRedisKeys(prefix, entityId);
    const packed: string[] = [];
    for (const row of rows)
      packed.push(
        row.key,
        String(row.seq),
        `${row.seq}:1:${NEVER_EXPIRES}:${JSON.stringify(sortedKeys(row.value))}`,
      );
    return run.benchFloorSave(keys.records, keys.live, JSON.stringify(packed));
  };
}

/** A copy of plain JSON data with every object's keys sorted: what canonical JSON needs. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    copy[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return copy;
}

/** Plain Redis search floor: `ZRANGEBYLEX` then `HMGET` (two round trips), values parsed. */
export function redisPlainSearch(client: Redis, prefix: string) {
  return async (entityId: string, keyPrefix: string, limit: number) => {
    const keys = longtermRedisKeys(prefix, entityId);
    const upper = prefixUpperBound(keyPrefix);
    const found = await client.zrangebylex(
      keys.live,
      `[${keyPrefix}`,
      upper === undefined ? '+' : `(${upper}`,
      'LIMIT',
      0,
      limit,
    );
    const records = found.length ? await client.hmget(keys.records, ...found) : [];
    return records.map((record) => parseRecordValue(record!));
  };
}

/**
 * Guarded Redis search floor: one hand-written script — the range, the records, and the expiry
 * check the store must make (a row past its expiry is not returned) — one round trip.
 */
export function redisGuardedSearch(client: Redis, prefix: string) {
  client.defineCommand('benchFloorSearch', {
    numberOfKeys: 2,
    lua: `local now = tonumber(ARGV[3])
local keys = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[4]))
if #keys == 0 then return {} end
local records = redis.call('HMGET', KEYS[1], unpack(keys))
local out = {}
for j = 1, #keys do
  local r = records[j]
  if r and tonumber(string.match(r, '^%d+:%d+:(%d+):')) > now then
    out[#out + 1] = keys[j]; out[#out + 1] = r
  end
end
return out`,
  });
  const run = client as unknown as {
    benchFloorSearch(
      records: string,
      live: string,
      lower: string,
      upper: string,
      now: number,
      limit: number,
    ): Promise<string[]>;
  };
  return async (entityId: string, keyPrefix: string, limit: number) => {
    const keys = longtermRedisKeys(prefix, entityId);
    const upper = prefixUpperBound(keyPrefix);
    const flat = await run.benchFloorSearch(
      keys.records,
      keys.live,
      `[${keyPrefix}`,
      upper === undefined ? '+' : `(${upper}`,
      Date.now(),
      limit,
    );
    const values: unknown[] = [];
    for (let i = 1; i < flat.length; i += 2) values.push(parseRecordValue(flat[i]!));
    return values;
  };
}

/** The value of a stored `seq:updatedAt:expiresAt:value` record, parsed. */
function parseRecordValue(record: string): unknown {
  const at = record.indexOf(':', record.indexOf(':', record.indexOf(':') + 1) + 1);
  return JSON.parse(record.slice(at + 1)) as unknown;
}
