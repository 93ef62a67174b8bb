import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import { RedisScript } from '../../connections/redis/redis-script.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import {
  type AppendOutcome,
  type AppendRequest,
  BaseChatMemoryStore,
} from './base-chat-memory.store.js';
import type { StoredPage } from './page-reading.js';

/**
 * KEYS[1] the list of message JSON; ARGV: the page's last position, most messages, most bytes.
 * Returns the version, then the newest messages up to that position, newest first, read in chunks
 * of 50 until the page is full or the bytes taken pass the budget (the message that passes it is
 * returned too, and cut by the caller): the page and its version in one round trip.
 */
const PAGE_SCRIPT = new RedisScript(`
local version = redis.call('LLEN', KEYS[1])
local last = math.min(version, tonumber(ARGV[1]))
local count = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local out = { version }
local used = 0
local taken = 0
while last > 0 and taken < count and used < budget do
  local size = math.min(50, count - taken, last)
  local chunk = redis.call('LRANGE', KEYS[1], last - size, last - 1)
  for i = #chunk, 1, -1 do
    if taken >= count or used >= budget then break end
    out[#out + 1] = chunk[i]
    used = used + #chunk[i]
    taken = taken + 1
  end
  last = last - size
end
return out
`);

/** The default key prefix of the Redis backend. */
export const DEFAULT_CHAT_REDIS_KEY_PREFIX = 'agent-memory:chat:';

/**
 * KEYS[1] the list of message JSON, KEYS[2] the hash of stored ids (an id's field marks it stored).
 * ARGV[1] the expected version or '', then id/json pairs. Returns the version after the append, or
 * −1 − the version on a conflict (one integer: no reply table to build).
 * Each new message is claimed by its id (`HSETNX`) and appended (`RPUSH` answers the version): two
 * calls for one message. With an expected version, the version is read first; if it does not match,
 * that is a conflict only if a message is new (a batch already stored is a no-op), and nothing is
 * written.
 */
const APPEND_SCRIPT = new RedisScript(`
if ARGV[1] ~= '' then
  local version = redis.call('LLEN', KEYS[1])
  if tonumber(ARGV[1]) ~= version then
    for i = 2, #ARGV, 2 do
      if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then return -1 - version end
    end
    return version
  end
end
local version = false
for i = 2, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], 1) == 1 then
    version = redis.call('RPUSH', KEYS[1], ARGV[i + 1])
  end
end
return version or redis.call('LLEN', KEYS[1])
`);

/**
 * Several callers' batches in one script (the store coalesces concurrent `add`s to one
 * conversation): ARGV holds, per batch, its expected version or '', its message count, then its
 * id/json pairs. Each batch is applied exactly as APPEND_SCRIPT would apply it alone at its turn (an
 * id claimed by an earlier batch counts as stored). Four calls whatever the group's size: the
 * version (`LLEN`), which ids are stored (one `HMGET`), then the new ids (one `HSET`) and the new
 * messages (one `RPUSH`); per message, the script itself only looks ids up in a Lua table. Returns
 * one integer per batch, encoded as APPEND_SCRIPT's reply.
 */
const APPEND_GROUP_SCRIPT = new RedisScript(`
local ids = {}
local at = 1
while at <= #ARGV do
  local last = at + 1 + 2 * tonumber(ARGV[at + 1])
  for i = at + 2, last, 2 do ids[#ids + 1] = ARGV[i] end
  at = last + 1
end
local stored = redis.call('HMGET', KEYS[2], unpack(ids))
local known = {}
for i = 1, #ids do
  if stored[i] then known[ids[i]] = true end
end
local version = redis.call('LLEN', KEYS[1])
local replies, claimed, bodies = {}, {}, {}
at = 1
while at <= #ARGV do
  local expected, last = ARGV[at], at + 1 + 2 * tonumber(ARGV[at + 1])
  local reply = version
  if expected ~= '' and tonumber(expected) ~= version then
    for i = at + 2, last, 2 do
      if not known[ARGV[i]] then reply = -1 - version; break end
    end
  else
    for i = at + 2, last, 2 do
      if not known[ARGV[i]] then
        known[ARGV[i]] = true
        claimed[#claimed + 1] = ARGV[i]
        claimed[#claimed + 1] = 1
        bodies[#bodies + 1] = ARGV[i + 1]
        version = version + 1
      end
    end
    reply = version
  end
  replies[#replies + 1] = reply
  at = last + 1
end
if #bodies > 0 then
  redis.call('HSET', KEYS[2], unpack(claimed))
  redis.call('RPUSH', KEYS[1], unpack(bodies))
end
return replies
`);

/**
 * Redis backend (`backend: 'redis'`): one list per conversation holding each message's JSON, plus a
 * hash of its ids for idempotency; the version is the list's length. `add` is one Lua script (one
 * round trip, atomic), and concurrent `add`s to one conversation in this process go as one
 * group script (see `AppendCoalescer`); reads are `LRANGE`/`LLEN`. Both keys carry the hash tag of a digest of the
 * conversation id, so they share a cluster slot whatever the id holds (`{`, `}`). Durable as far as
 * the server's persistence is configured.
 */
export class RedisChatMemoryStore extends BaseChatMemoryStore implements BackedChatMemoryStore {
  protected readonly system = 'redis' as const;
  readonly backing: ChatStoreBacking;

  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string = DEFAULT_CHAT_REDIS_KEY_PREFIX,
  ) {
    super();
    this.backing = { kind: 'redis', client };
  }

  protected async appendBatch(
    conversationId: string,
    messages: PreparedMessage[],
    expectedVersion: number | undefined,
  ): Promise<AppendOutcome> {
    const args: string[] = [expectedVersion === undefined ? '' : String(expectedVersion)];
    for (const message of messages) args.push(message.id, message.json);
    return outcome(
      (await APPEND_SCRIPT.run(this.client, this.keys(conversationId), args)) as number,
    );
  }

  protected override async appendGroup(
    conversationId: string,
    requests: AppendRequest[],
  ): Promise<AppendOutcome[]> {
    const args: string[] = [];
    for (const { messages, expectedVersion } of requests) {
      args.push(expectedVersion === undefined ? '' : String(expectedVersion));
      args.push(String(messages.length));
      for (const message of messages) args.push(message.id, message.json);
    }
    const replies = (await APPEND_GROUP_SCRIPT.run(
      this.client,
      this.keys(conversationId),
      args,
    )) as number[];
    return replies.map(outcome);
  }

  protected readAll(conversationId: string): Promise<string[]> {
    return this.client.lrange(this.listKey(conversationId), 0, -1);
  }

  protected readTail(conversationId: string, n: number): Promise<string[]> {
    return this.client.lrange(this.listKey(conversationId), -n, -1);
  }

  protected readRange(
    conversationId: string,
    fromVersion: number,
    limit: number,
  ): Promise<string[]> {
    return this.client.lrange(this.listKey(conversationId), fromVersion, fromVersion + limit - 1);
  }

  protected override async readPage(
    conversationId: string,
    end: number | undefined,
    count: number,
    maxBytes: number,
  ): Promise<StoredPage> {
    const [version, ...newestFirst] = (await PAGE_SCRIPT.run(
      this.client,
      [this.listKey(conversationId)],
      [end ?? Number.MAX_SAFE_INTEGER, count, maxBytes],
    )) as [number, ...string[]];
    return { version, newestFirst };
  }

  protected readVersion(conversationId: string): Promise<number> {
    return this.client.llen(this.listKey(conversationId));
  }

  protected async removeConversation(conversationId: string): Promise<void> {
    await this.client.del(...this.keys(conversationId));
  }

  private listKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:messages`;
  }

  private keys(conversationId: string): [string, string] {
    const base = this.keyPrefix + taggedRedisId(conversationId);
    return [`${base}:messages`, `${base}:ids`];
  }
}

/** An append script's reply: the version, or −1 − the version on a conflict. */
function outcome(reply: number): AppendOutcome {
  return reply < 0 ? { conflict: true, version: -1 - reply } : { conflict: false, version: reply };
}
