import type { RedisClient } from '../../connections/redis/redis-client.js';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import { WRITE, SEARCH, ERASE, SWEEP } from './redis.longterm.scripts.js';
import { RECALL } from './redis.text-index.scripts.js';
import type { TextMatch } from '../recall/text-match.js';
import type { PreparedEmbedding, VectorMatch } from '../recall/vector-match.js';
import {
  readRedisRows,
  readRedisVectors,
  scanRedisUnembedded,
  writeRedisEmbeddings,
} from './redis-longterm-vectors.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { VectorCandidate } from './vector-scan.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type ScoredRow,
  type StoredRow,
} from './base-longterm.store.js';
import { NEVER_EXPIRES, TOMBSTONE } from './sql-row-format.js';
import { DEFAULT_LONGTERM_REDIS_PREFIX, longtermRedisKeys } from './redis-keys.js';
import { type EntityRows, groupByEntity, packRows, verdicts } from './redis-write-batch.js';

/** Default most postings a text search reads in full (see {@link RedisLongtermStoreSettings}). */
export const DEFAULT_POSTING_BUDGET = 20_000;

/** Settings of the Redis long-term store. */
export interface RedisLongtermStoreSettings extends LongtermStoreSettings {
  /**
   * Most postings (record, word) a text search reads in full (default 20,000), which bounds its
   * cost on the server's one thread: the query's words are read rarest first, and a word that would
   * go beyond the budget only scores the records already found (or, when none is, a sample).
   */
  postingBudget?: number;
}

/**
 * Long-term store on Redis. Per entity (keys hash-tagged with a digest of the entity id, so each
 * script's keys share a cluster slot whatever the id holds): a hash of records, a sorted set of live
 * keys (search is `ZRANGEBYLEX`: byte order, literal prefix, no `KEYS`/`HSCAN`) and a sorted set by
 * expiry. The seq guard runs in one Lua script per entity: a one-entity batch without expiring rows
 * is that script alone; otherwise one pipeline (one round trip) also adds each entity with rows
 * that expire to the set the sweeper visits. The text index (a posting hash per word, kept by the
 * same scripts) is searched by one script with a bounded cost (`RECALL`).
 */
export class RedisLongtermStore extends BaseLongtermStore {
  protected readonly system = 'redis' as const;
  private readonly postingBudget: number;
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = DEFAULT_LONGTERM_REDIS_PREFIX,
    settings?: RedisLongtermStoreSettings,
  ) {
    super(settings);
    this.postingBudget = settings?.postingBudget ?? DEFAULT_POSTING_BUDGET;
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const groups = groupByEntity(rows);
    if (groups.length === 1 && !groups[0]!.expiring) {
      // The common case, one entity and nothing that expires: one script, nothing else.
      const group = groups[0]!;
      return verdicts(
        (await WRITE.run(
          this.client,
          this.writeKeys(group.entityId),
          this.writeArgs(group, now),
        )) as string,
      );
    }
    const pipeline = new RedisScriptPipeline(this.client);
    for (const group of groups) {
      pipeline.script(WRITE, this.writeKeys(group.entityId), this.writeArgs(group, now));
      // The sweeper visits the entities of this set: those that hold rows that expire.
      if (group.expiring) pipeline.command('sadd', this.entitiesKey(), group.entityId);
    }
    const results = await pipeline.exec();
    const applied: boolean[] = new Array(rows.length);
    let step = 0;
    for (const group of groups) {
      const verdict = results[step] as string;
      group.indexes.forEach((index, i) => (applied[index] = verdict[i] === '1'));
      step += group.expiring ? 2 : 1;
    }
    return applied;
  }

  /** The WRITE script's arguments for one entity's rows. */
  private writeArgs(group: EntityRows, now: number): Array<string | number> {
    return [now, NEVER_EXPIRES, this.entityKeys(group.entityId).wordBase, ...packRows(group.rows)];
  }

  protected async readOne(entityId: string, key: string, now: number): Promise<StoredRow | null> {
    const record = await this.client.hget(this.entityKeys(entityId).records, key);
    const row = record === null ? null : parse(entityId, key, record);
    return row && row.value !== TOMBSTONE && (row.expiresAt === null || row.expiresAt > now)
      ? row
      : null;
  }

  protected async readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]> {
    const flat = (await SEARCH.run(this.client, this.rowKeys(entityId).slice(0, 2), [
      `[${lower}`,
      upper === undefined ? '+' : `(${upper}`,
      now,
      limit,
    ])) as string[];
    const rows: StoredRow[] = [];
    for (let i = 0; i < flat.length && rows.length < limit; i += 2)
      rows.push(parse(entityId, flat[i]!, flat[i + 1]!));
    return rows;
  }

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const keys = this.entityKeys(entityId);
    const flat = (await RECALL.run(
      this.client,
      [keys.records, keys.docs, keys.totals],
      [
        keys.wordBase,
        now,
        match.limit,
        match.lower,
        match.updatedFrom,
        match.updatedTo,
        this.postingBudget,
        ...match.words,
      ],
    )) as string[];
    const rows: ScoredRow[] = [];
    for (let i = 0; i < flat.length && rows.length < match.limit; i += 3)
      rows.push({ ...parse(entityId, flat[i]!, flat[i + 1]!), score: Number(flat[i + 2]) });
    return rows;
  }

  protected async eraseEntity(entityId: string): Promise<void> {
    const keys = this.entityKeys(entityId);
    await ERASE.run(
      this.client,
      [...this.rowKeys(entityId), keys.erased, keys.counter, keys.docs, keys.totals, keys.vectors],
      [keys.wordBase],
    );
  }

  protected async readVectors(entityId: string, match: VectorMatch): Promise<VectorCandidate[]> {
    return readRedisVectors(this.client, this.entityKeys(entityId), match);
  }

  protected async readMany(entityId: string, keys: string[], now: number): Promise<StoredRow[]> {
    return readRedisRows(this.client, this.entityKeys(entityId), entityId, keys, now, parse);
  }

  protected async readUnembedded(
    model: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): Promise<{ rows: StoredRow[]; cursor?: string }> {
    return scanRedisUnembedded(this.client, this.keyPrefix, model, limit, cursor, now, parse);
  }

  protected async writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]> {
    return writeRedisEmbeddings(this.client, this.keyPrefix, updates, now);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    let removed = 0;
    let cursor = '0';
    do {
      const [next, entities] = await this.client.sscan(this.entitiesKey(), cursor, 'COUNT', 100);
      cursor = next;
      for (const entityId of entities) {
        if (removed >= limit) return removed;
        const keys = this.entityKeys(entityId);
        removed += (await SWEEP.run(
          this.client,
          [...this.rowKeys(entityId), keys.docs, keys.totals, keys.vectors],
          [now, limit - removed, keys.wordBase],
        )) as number;
        await this.forgetIfNothingExpires(entityId);
      }
    } while (cursor !== '0');
    return removed;
  }

  /**
   * Takes the entity out of the sweeper's set once it holds no row that expires. A writer adds an
   * expiring row (script) before it adds the entity (`SADD`), so checking again after the `SREM`
   * catches a write that raced it: either its row is seen then, or its `SADD` comes after.
   */
  private async forgetIfNothingExpires(entityId: string): Promise<void> {
    const expiry = this.entityKeys(entityId).expiry;
    if ((await this.client.exists(expiry)) !== 0) return;
    await this.client.srem(this.entitiesKey(), entityId);
    if ((await this.client.exists(expiry)) !== 0)
      await this.client.sadd(this.entitiesKey(), entityId);
  }

  private entityKeys(entityId: string) {
    return longtermRedisKeys(this.keyPrefix, entityId);
  }

  /** Records hash, live-keys set, expiry set. */
  private rowKeys(entityId: string): [string, string, string] {
    const keys = this.entityKeys(entityId);
    return [keys.records, keys.live, keys.expiry];
  }

  /** The row keys, the erasure mark and the text index's docs and totals. */
  private writeKeys(entityId: string): string[] {
    const keys = this.entityKeys(entityId);
    return [...this.rowKeys(entityId), keys.erased, keys.docs, keys.totals, keys.vectors];
  }

  private entitiesKey(): string {
    return `${this.keyPrefix}entities`;
  }
}

function parse(entityId: string, key: string, record: string): StoredRow {
  // `seq:updatedAt:expiresAt:value`, as the scripts write it: the first three colons split it.
  const afterSeq = record.indexOf(':');
  const afterUpdated = record.indexOf(':', afterSeq + 1);
  const afterExpiry = record.indexOf(':', afterUpdated + 1);
  const expiresAt = Number(record.slice(afterUpdated + 1, afterExpiry));
  return {
    entityId,
    key,
    value: record.slice(afterExpiry + 1),
    seq: Number(record.slice(0, afterSeq)),
    updatedAt: Number(record.slice(afterSeq + 1, afterUpdated)),
    expiresAt: expiresAt >= NEVER_EXPIRES ? null : expiresAt,
  };
}
