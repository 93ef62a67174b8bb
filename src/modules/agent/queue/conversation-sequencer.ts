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

/**
 * KEYS: order list, lease, parked jobs. ARGV: runId, 1 to leave the order (final) or 0. Frees the
 * lease; a run that leaves also leaves the parked jobs. Returns the head of the order, or false.
 */
const RELEASE = new RedisScript(`
if ARGV[2] == '1' then
  redis.call('LREM', KEYS[1], 1, ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return redis.call('LINDEX', KEYS[1], 0)
`);

/**
 * KEYS: order list, lease, parked jobs. ARGV: runId. Removes the run only while it heads the order
 * and does not hold the lease (it did not start meanwhile). Returns 1 if removed.
 */
const EVICT = new RedisScript(`
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] or redis.call('GET', KEYS[2]) == ARGV[1] then return 0 end
redis.call('LPOP', KEYS[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`);

/** KEYS: parked jobs. ARGV: runId, job id, retention ms. Notes where a waiting run's job is. */
const PARK = new RedisScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
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

  /**
   * Frees the lease; with `leave`, the run also leaves the order (it reached a final state). Resolves
   * the run now heading the order, if any.
   */
  async release(
    conversationId: string,
    runId: string,
    leave: boolean,
  ): Promise<string | undefined> {
    const head = await RELEASE.run(
      this.client,
      [...this.keys(conversationId), this.parkedKey(conversationId)],
      [runId, leave ? '1' : '0'],
    );
    return typeof head === 'string' ? head : undefined;
  }

  /**
   * Removes a run from the head of the order (it settled, or nobody will ever run it), only if it
   * still heads it and has not taken the lease meanwhile; resolves whether it did.
   */
  async evict(conversationId: string, runId: string): Promise<boolean> {
    const removed = await EVICT.run(
      this.client,
      [...this.keys(conversationId), this.parkedKey(conversationId)],
      [runId],
    );
    return removed === 1;
  }

  /** Notes the job a waiting run is parked as (a delayed job), so its turn can wake it. */
  async park(conversationId: string, runId: string, jobId: string): Promise<void> {
    await PARK.run(this.client, [this.parkedKey(conversationId)], [runId, jobId, this.retentionMs]);
  }

  /** The job a waiting run is parked as, if any. */
  async parkedJob(conversationId: string, runId: string): Promise<string | undefined> {
    return (await this.client.hget(this.parkedKey(conversationId), runId)) ?? undefined;
  }

  private orderKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:order`;
  }

  private leaseKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:lease`;
  }

  private parkedKey(conversationId: string): string {
    return `${this.keyPrefix}${taggedRedisId(conversationId)}:parked`;
  }

  private keys(conversationId: string): [string, string] {
    return [this.orderKey(conversationId), this.leaseKey(conversationId)];
  }
}
