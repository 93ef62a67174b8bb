import { type RunClaim, type RunClaimed, claimInSteps } from './run-claim.js';
import type { RedisClient } from '../../connections/redis/redis-client.js';
import { RedisScript } from '../../connections/redis/redis-script.js';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import {
  DEFAULT_RUN_RETENTION_MS,
  type GuardedPut,
  type OrderedIndexEntry,
  type RunStore,
} from './run-store.interface.js';

/** KEYS[1] the run's hash; ARGV key, value, retention ms. Sets the expiry on the hash's first write. */
const PUT_IF_ABSENT = new RedisScript(`
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return redis.call('HGET', KEYS[1], ARGV[1])
`);

/**
 * KEYS[1] the run's hash; ARGV guard key, guard value, key, value, retention ms. The guard as
 * `PUT_IF_ABSENT`, then the entry only if the guard holds the given value; answers both stored
 * values (the second `false` when the guard held another).
 */
const PUT_IF_ABSENT_GUARDED = new RedisScript(`
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
local guard = redis.call('HGET', KEYS[1], ARGV[1])
if guard ~= ARGV[2] then return {guard, false} end
redis.call('HSETNX', KEYS[1], ARGV[3], ARGV[4])
return {guard, redis.call('HGET', KEYS[1], ARGV[3])}
`);

/** KEYS[1] the run's hash; ARGV key, value, retention ms. Renews the hash's retention. */
const PUT = new RedisScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/** KEYS[1] the run's hash; ARGV key, expected, value, retention ms. Compare-and-set; 1 if replaced. */
const REPLACE_IF = new RedisScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

/**
 * KEYS[1] the index (a sorted set of run ids by expiry); ARGV run id, now, retention ms. Adds the
 * run, drops the entries that expired, and keeps the set alive as long as its newest entry.
 */
const ADD_TO_INDEX = new RedisScript(`
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/**
 * KEYS[1] an ordered index (a sorted set of run ids by the time they were added); ARGV run id, at,
 * now, retention ms. Adds the run, drops the entries past the retention, keeps the set alive.
 */
const ADD_TO_ORDERED_INDEX = new RedisScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);

/**
 * Run store on Redis: one hash per run (its key hash-tagged with a digest of the run id), expiring
 * with the retention (Redis itself sweeps).
 */
export class RedisRunStore implements RunStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = 'agent-memory:runs:',
    private readonly retentionMs = DEFAULT_RUN_RETENTION_MS,
  ) {}

  async putIfAbsent(runId: string, key: string, value: string): Promise<string> {
    return (await PUT_IF_ABSENT.run(
      this.client,
      [this.key(runId)],
      [key, value, this.retentionMs],
    )) as string;
  }

  async putIfAbsentGuarded(
    runId: string,
    guard: readonly [string, string],
    entry: readonly [string, string],
  ): Promise<GuardedPut> {
    const [stored, storedEntry] = (await PUT_IF_ABSENT_GUARDED.run(
      this.client,
      [this.key(runId)],
      [...guard, ...entry, this.retentionMs],
    )) as [string, string | null];
    return storedEntry === null ? { guard: stored } : { guard: stored, entry: storedEntry };
  }

  async get(runId: string, key: string): Promise<string | undefined> {
    return (await this.client.hget(this.key(runId), key)) ?? undefined;
  }

  async entries(runId: string): Promise<Array<[string, string]>> {
    return Object.entries(await this.client.hgetall(this.key(runId)));
  }

  async replaceIf(runId: string, key: string, expected: string, value: string): Promise<boolean> {
    const replaced = await REPLACE_IF.run(
      this.client,
      [this.key(runId)],
      [key, expected, value, this.retentionMs],
    );
    return replaced === 1;
  }

  async put(runId: string, key: string, value: string): Promise<void> {
    await PUT.run(this.client, [this.key(runId)], [key, value, this.retentionMs]);
  }

  async removeEntry(runId: string, key: string): Promise<void> {
    await this.client.hdel(this.key(runId), key);
  }

  async addToIndex(index: string, runId: string): Promise<void> {
    await ADD_TO_INDEX.run(this.client, [this.key(index)], [runId, Date.now(), this.retentionMs]);
  }

  indexed(index: string): Promise<string[]> {
    return this.client.zrangebyscore(this.key(index), Date.now(), '+inf');
  }

  async addToOrderedIndex(index: string, runId: string, at: number): Promise<void> {
    await ADD_TO_ORDERED_INDEX.run(
      this.client,
      [this.key(index)],
      [runId, at, Date.now(), this.retentionMs],
    );
  }

  /**
   * Newest first: the runs of the cursor's own millisecond past its run id (a handful, filtered
   * here in byte order, Redis's own order of equal scores; not in a script, whose string compare
   * follows the server's locale), then `limit` older ones; both reads sent at once.
   */
  async orderedPage(
    index: string,
    limit: number,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]> {
    const key = this.key(index);
    const oldest = `(${Date.now() - this.retentionMs}`;
    const newest = before ? `(${before.at}` : '+inf';
    const [older, tied] = await Promise.all([
      this.client.zrevrangebyscore(key, newest, oldest, 'WITHSCORES', 'LIMIT', 0, limit),
      before ? this.client.zrevrangebyscore(key, before.at, before.at) : Promise.resolve([]),
    ]);
    const page: OrderedIndexEntry[] = tied
      .filter((runId) => runId < before!.runId)
      .map((runId) => ({ runId, at: before!.at }));
    for (let i = 0; i < older.length; i += 2)
      page.push({ runId: older[i]!, at: Number(older[i + 1]) });
    return page.slice(0, limit);
  }

  /** The claim's steps one after another, each atomic on its own. */
  claim(claim: RunClaim): Promise<RunClaimed> {
    return claimInSteps(this, claim);
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    // One key per run, each in its own slot: plain DELs, pipelined (sent at once on a cluster).
    if (runIds.length === 0) return;
    const pipeline = new RedisScriptPipeline(this.client);
    for (const runId of runIds) pipeline.command('del', this.key(runId));
    await pipeline.exec();
  }

  /** Redis expires whole runs itself. */
  async sweep(): Promise<number> {
    return 0;
  }

  private key(runId: string): string {
    return `${this.keyPrefix}${taggedRedisId(runId)}`;
  }
}
