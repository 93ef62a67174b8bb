import type { RedisClient } from '../../connections/redis/redis-client.js';
import { compareCodePoints } from '../../../common/canonical-json.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import {
  type ConversationDirectory,
  type ConversationListing,
  type ConversationPage,
  conversationNamespace,
} from './conversation-directory.interface.js';

/**
 * Conversation directory on Redis: one sorted set per namespace, scored by the time of the last
 * activity (`ZADD GT`, so a time only moves forward). Members of one score sort by byte order,
 * which is code-point order. A page is one round trip.
 */
export class RedisConversationDirectory implements ConversationDirectory {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = 'agent-memory:conversations:',
  ) {}

  async touch(conversationId: string, at: number): Promise<void> {
    await this.client.zadd(
      this.key(conversationNamespace(conversationId)),
      'GT',
      at,
      conversationId,
    );
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListing[]> {
    const key = this.key(namespace);
    const after = page.after;
    if (!after)
      return pairs(
        await this.client.zrevrangebyscore(
          key,
          '+inf',
          '-inf',
          'WITHSCORES',
          'LIMIT',
          0,
          page.limit,
        ),
      );
    // The rest of the cursor's own millisecond (ids below the cursor's), then older ones.
    const [same, older] = (await this.client
      .pipeline()
      .zrangebyscore(key, after.lastActiveAt, after.lastActiveAt)
      .zrevrangebyscore(key, `(${after.lastActiveAt}`, '-inf', 'WITHSCORES', 'LIMIT', 0, page.limit)
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value as string[];
    });
    const sameTime = same!
      .filter((id) => compareCodePoints(id, after.conversationId) < 0)
      .reverse()
      .map((conversationId) => ({ conversationId, lastActiveAt: after.lastActiveAt }));
    return [...sameTime, ...pairs(older!)].slice(0, page.limit);
  }

  async remove(conversationId: string): Promise<void> {
    await this.client.zrem(this.key(conversationNamespace(conversationId)), conversationId);
  }

  private key(namespace: string): string {
    return `${this.keyPrefix}${taggedRedisId(namespace)}`;
  }
}

/** `[member, score, member, score, …]` as listings. */
function pairs(flat: string[]): ConversationListing[] {
  const listings: ConversationListing[] = [];
  for (let i = 0; i < flat.length; i += 2)
    listings.push({ conversationId: flat[i]!, lastActiveAt: Number(flat[i + 1]) });
  return listings;
}
