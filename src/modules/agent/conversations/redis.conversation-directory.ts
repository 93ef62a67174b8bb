import type { RedisClient } from '../../connections/redis/redis-client.js';
import { compareCodePoints } from '../../../common/canonical-json.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import {
  type ConversationTurnText,
  assertMetadataCount,
  checkConversationPatch,
  CONVERSATION_METADATA_LIMITS,
  matchesMetadata,
} from './conversation-details.js';
import {
  type ConversationDirectory,
  type ConversationListPage,
  type ConversationListing,
  type ConversationPage,
  type ConversationPatch,
  type ConversationPosition,
  FILTER_SCAN_BUDGET,
  conversationNamespace,
  positionOf,
} from './conversation-directory.interface.js';
import { TOUCH, UPDATE } from './redis.conversation-directory.scripts.js';

/**
 * Conversation directory on Redis: one sorted set per namespace, scored by the time of the last
 * activity (a time only moves forward), and one hash per conversation with its title (`t`, `''` once
 * cleared), preview (`p`) and metadata (`m:<key>`). The hash's key carries the namespace's hash tag,
 * so a script or pipeline over both stays in one cluster slot. Members of one score sort by byte
 * order, which is code-point order. A page is two round trips (the range, then the hashes); a
 * filtered page reads ranges of growing size until it has its listings or has read
 * {@link FILTER_SCAN_BUDGET} entries.
 */
export class RedisConversationDirectory implements ConversationDirectory {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = 'agent-memory:conversations:',
  ) {}

  async touch(conversationId: string, at: number, turn: ConversationTurnText = {}): Promise<void> {
    await TOUCH.run(this.client, this.keys(conversationId), [
      at,
      conversationId,
      turn.title ?? '',
      turn.preview ?? '',
    ]);
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListPage> {
    const filter =
      page.metadata && Object.keys(page.metadata).length > 0 ? page.metadata : undefined;
    if (!filter) {
      const positions = await this.range(namespace, page.after, page.limit + 1);
      const conversations = await this.details(namespace, positions.slice(0, page.limit));
      return positions.length > page.limit
        ? { conversations, next: positionOf(conversations.at(-1)!) }
        : { conversations };
    }
    const conversations: ConversationListing[] = [];
    let after = page.after;
    let read = 0;
    let chunk = 2 * (page.limit + 1);
    while (read < FILTER_SCAN_BUDGET) {
      const wanted = Math.min(chunk, FILTER_SCAN_BUDGET - read);
      const positions = await this.range(namespace, after, wanted);
      read += positions.length;
      for (const listing of await this.details(namespace, positions)) {
        if (!matchesMetadata(listing.metadata, filter)) continue;
        if (conversations.length === page.limit)
          return { conversations, next: positionOf(conversations.at(-1)!) };
        conversations.push(listing);
      }
      if (positions.length < wanted) return { conversations };
      after = positions.at(-1);
      chunk *= 2;
    }
    return { conversations, ...(after ? { next: positionOf(after) } : {}) };
  }

  async update(
    conversationId: string,
    patch: ConversationPatch,
  ): Promise<ConversationListing | undefined> {
    const checked = checkConversationPatch(patch);
    const pairs = Object.entries(checked.metadata ?? {}).flatMap(([key, value]) => [
      key,
      value === null ? 'd' : `s${value}`,
    ]);
    const answer = (await UPDATE.run(this.client, this.keys(conversationId), [
      conversationId,
      CONVERSATION_METADATA_LIMITS.maxKeys,
      checked.title === undefined ? '-' : '=',
      checked.title ?? '',
      ...pairs,
    ])) as null | [0, number] | [1, string, string[]];
    if (answer === null) return undefined;
    if (answer[0] === 0) {
      assertMetadataCount(answer[1]);
      throw new Error('The conversation directory refused a metadata change it should take');
    }
    return fromHash(conversationId, Number(answer[1]), answer[2]);
  }

  async remove(conversationId: string): Promise<void> {
    const [set, details] = this.keys(conversationId);
    await this.client.multi().zrem(set, conversationId).del(details).exec();
  }

  /** The namespace's sorted set and the conversation's details hash (one cluster slot). */
  private keys(conversationId: string): [string, string] {
    const namespace = conversationNamespace(conversationId);
    return [this.key(namespace), this.detailsKey(namespace, conversationId)];
  }

  private key(namespace: string): string {
    return `${this.keyPrefix}${taggedRedisId(namespace)}`;
  }

  /**
   * `…details:{tag}<conversation id>`: never a namespace's key (those go on with `{`), and its
   * first `{…}` is the namespace's tag.
   */
  private detailsKey(namespace: string, conversationId: string): string {
    const tagged = taggedRedisId(namespace);
    const tag = tagged.slice(0, tagged.indexOf('}') + 1);
    return `${this.keyPrefix}details:${tag}${conversationId}`;
  }

  /** Up to `count` positions of the namespace after `after`, newest first. */
  private async range(
    namespace: string,
    after: ConversationPosition | undefined,
    count: number,
  ): Promise<ConversationPosition[]> {
    const key = this.key(namespace);
    if (!after)
      return pairs(
        await this.client.zrevrangebyscore(key, '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, count),
      );
    // The rest of the cursor's own millisecond (ids below the cursor's), then older ones.
    const [same, older] = (await this.client
      .pipeline()
      .zrangebyscore(key, after.lastActiveAt, after.lastActiveAt)
      .zrevrangebyscore(key, `(${after.lastActiveAt}`, '-inf', 'WITHSCORES', 'LIMIT', 0, count)
      .exec())!.map(([error, value]) => {
      if (error) throw error;
      return value as string[];
    });
    const sameTime = same!
      .filter((id) => compareCodePoints(id, after.conversationId) < 0)
      .reverse()
      .map((conversationId) => ({ conversationId, lastActiveAt: after.lastActiveAt }));
    return [...sameTime, ...pairs(older!)].slice(0, count);
  }

  /** The listings of `positions`, with their hashes (one pipeline). */
  private async details(
    namespace: string,
    positions: ConversationPosition[],
  ): Promise<ConversationListing[]> {
    if (positions.length === 0) return [];
    const pipeline = this.client.pipeline();
    for (const { conversationId } of positions)
      pipeline.hgetall(this.detailsKey(namespace, conversationId));
    const hashes = (await pipeline.exec())!.map(([error, value]) => {
      if (error) throw error;
      return value as Record<string, string>;
    });
    return positions.map(({ conversationId, lastActiveAt }, i) =>
      fromHash(conversationId, lastActiveAt, Object.entries(hashes[i]!).flat()),
    );
  }
}

/** A listing from its time and its hash's `[field, value, …]`. */
function fromHash(
  conversationId: string,
  lastActiveAt: number,
  flat: string[],
): ConversationListing {
  const listing: ConversationListing = { conversationId, lastActiveAt };
  const metadata = new Map<string, string>();
  for (let i = 0; i < flat.length; i += 2) {
    const [field, value] = [flat[i]!, flat[i + 1]!];
    if (field === 't' && value) listing.title = value;
    else if (field === 'p' && value) listing.preview = value;
    else if (field.startsWith('m:')) metadata.set(field.slice(2), value);
  }
  if (metadata.size > 0) listing.metadata = Object.fromEntries(metadata);
  return listing;
}

/** `[member, score, member, score, …]` as positions. */
function pairs(flat: string[]): ConversationPosition[] {
  const positions: ConversationPosition[] = [];
  for (let i = 0; i < flat.length; i += 2)
    positions.push({ conversationId: flat[i]!, lastActiveAt: Number(flat[i + 1]) });
  return positions;
}
