import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { Redis } from 'ioredis';
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
 * KEYS[1] the list of message JSON, KEYS[2] the hash of stored ids (id → position).
 * ARGV[1] the expected version or '', then id/json pairs. Returns {conflict, version}.
 */
const APPEND_SCRIPT = new RedisScript(`
local version = redis.call('LLEN', KEYS[1])
local fresh = {}
for i = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 0 then fresh[#fresh + 1] = i end
end
if #fresh == 0 then return {0, version} end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= version then return {1, version} end
for n, i in ipairs(fresh) do
  redis.call('RPUSH', KEYS[1], ARGV[i + 1])
  redis.call('HSET', KEYS[2], ARGV[i], version + n)
end
return {0, version + #fresh}
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
    private readonly client: Redis,
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
    const [conflict, version] = (await APPEND_SCRIPT.run(
      this.client,
      this.keys(conversationId),
      args,
    )) as [number, number];
    return { conflict: conflict === 1, version };
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
    return [this.listKey(conversationId), `${this.keyPrefix}${taggedRedisId(conversationId)}:ids`];
  }
}
