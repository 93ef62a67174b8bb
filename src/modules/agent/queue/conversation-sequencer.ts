import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { RedisScript } from '../../connections/redis/redis-script.js';

/**
 * KEYS: order list, lease. ARGV: runId, lease ms. Acquires when the run heads the conversation's
 * order (or is not in it at all) and the lease is free or already its own. Returns 1, or the head.
 */
const ACQUIRE = new RedisScript(`
local head = redis.call('LINDEX', KEYS[1], 0)
if head and head ~= ARGV[1] and redis.call('LPOS', KEYS[1], ARGV[1]) then return head end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then return holder end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** KEYS: lease. ARGV: runId, lease ms. Extends the lease if the run holds it. */
const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** KEYS: order list, lease. ARGV: runId, 1 to leave the order (final) or 0. Frees the lease. */
const RELEASE = new RedisScript(`
if ARGV[2] == '1' then redis.call('LREM', KEYS[1], 1, ARGV[1]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
`);

/** The outcome of trying to take a conversation's turn. */
export type AcquireOutcome = { acquired: true } | { acquired: false; blockedBy: string };

/**
 * Per-conversation order and lease on Redis (Bull 4 has no per-key concurrency). Runs join the
 * conversation's order when submitted; a run may go only when it heads the order and holds the
 * lease, a key with a TTL that the worker renews while it runs and that expires if the worker dies.
 * Never a database lock held across an LLM call. Keys are hash-tagged by conversation.
 */
export class ConversationSequencer {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix: string,
    private readonly retentionMs: number,
  ) {}

  /** Appends the run to its conversation's order (at submission). */
  async join(conversationId: string, runId: string): Promise<void> {
    const key = this.orderKey(conversationId);
    await this.client.multi().rpush(key, runId).pexpire(key, this.retentionMs).exec();
  }

  async tryAcquire(
    conversationId: string,
    runId: string,
    leaseMs: number,
  ): Promise<AcquireOutcome> {
    const result = await ACQUIRE.run(this.client, this.keys(conversationId), [runId, leaseMs]);
    return result === 1 ? { acquired: true } : { acquired: false, blockedBy: String(result) };
  }

  async renew(conversationId: string, runId: string, leaseMs: number): Promise<boolean> {
    return (await RENEW.run(this.client, [this.leaseKey(conversationId)], [runId, leaseMs])) === 1;
  }

  /** Frees the lease; with `leave`, the run also leaves the order (it reached a final state). */
  async release(conversationId: string, runId: string, leave: boolean): Promise<void> {
    await RELEASE.run(this.client, this.keys(conversationId), [runId, leave ? '1' : '0']);
  }

  /** Removes a run that is stuck at the head although it has settled. */
  async evict(conversationId: string, runId: string): Promise<void> {
    await this.client.lrem(this.orderKey(conversationId), 1, runId);
  }

  private orderKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:order`;
  }

  private leaseKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:lease`;
  }

  private keys(conversationId: string): [string, string] {
    return [this.orderKey(conversationId), this.leaseKey(conversationId)];
  }
}
