import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import type {
  BackedChatMemoryStore,
  ChatStoreBacking,
} from '../interfaces/chat-store-backing.interface.js';
import { RedisScript } from '../../connections/redis/redis-script.js';
import type { PreparedMessage } from '../../../common/messages/prepared-message.js';
import { type AppendOutcome, BaseChatMemoryStore } from './base-chat-memory.store.js';

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
 * Redis backend (`backend: 'redis'`): one list per conversation holding each message's JSON, plus a
 * hash of its ids for idempotency; the version is the list's length. `add` is one Lua script (one
 * round trip, atomic); reads are `LRANGE`/`LLEN`. Both keys carry the hash tag of a digest of the
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
    const reply = (await APPEND_SCRIPT.run(this.client, this.keys(conversationId), args)) as number;
    return reply < 0
      ? { conflict: true, version: -1 - reply }
      : { conflict: false, version: reply };
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
