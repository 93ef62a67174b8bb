import type { Redis } from 'ioredis';
import { RedisScriptPipeline } from '../../connections/redis/redis-script-pipeline.js';
import { WRITE, SEARCH, ERASE, SWEEP } from './redis.longterm.scripts.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';
import { NEVER_EXPIRES, TOMBSTONE } from './sql-row-format.js';
import { DEFAULT_LONGTERM_REDIS_PREFIX, longtermRedisKeys } from './redis-keys.js';

/**
 * Long-term store on Redis. Per entity (keys hash-tagged with a digest of the entity id, so each
 * script's keys share a cluster slot whatever the id holds): a hash of records, a sorted set of live keys (search is `ZRANGEBYLEX`: byte order,
 * literal prefix, no `KEYS`/`HSCAN`) and a sorted set by expiry. The seq guard runs in one Lua script
 * per entity; a batch over several entities is one pipeline (one round trip). A set of entities
 * feeds the sweeper.
 */
export class RedisLongtermStore extends BaseLongtermStore {
  protected readonly system = 'redis' as const;
  constructor(
    private readonly client: Redis,
    private readonly keyPrefix = DEFAULT_LONGTERM_REDIS_PREFIX,
    settings?: LongtermStoreSettings,
  ) {
    super(settings);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    const byEntity = new Map<string, number[]>();
    rows.forEach((row, index) => {
      const indexes = byEntity.get(row.entityId);
      if (indexes) indexes.push(index);
      else byEntity.set(row.entityId, [index]);
    });
    const pipeline = new RedisScriptPipeline(this.client);
    for (const [entityId, indexes] of byEntity) {
      const packed: string[] = [];
      for (const index of indexes) {
        const row = rows[index]!;
        packed.push(
          row.key,
          String(row.seq),
          String(row.updatedAt),
          String(row.expiresAt ?? NEVER_EXPIRES),
          row.value ?? TOMBSTONE,
        );
      }
      pipeline
        .script(WRITE, this.writeKeys(entityId), [now, NEVER_EXPIRES, JSON.stringify(packed)])
        .command('sadd', this.entitiesKey(), entityId);
    }
    const results = await pipeline.exec();
    const applied: boolean[] = new Array(rows.length);
    [...byEntity.values()].forEach((indexes, n) => {
      const verdicts = results[n * 2] as string;
      indexes.forEach((index, i) => (applied[index] = verdicts[i] === '1'));
    });
    return applied;
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

  protected async eraseEntity(entityId: string): Promise<void> {
    const keys = this.entityKeys(entityId);
    await ERASE.run(this.client, [...this.rowKeys(entityId), keys.erased, keys.counter], []);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    let removed = 0;
    let cursor = '0';
    do {
      const [next, entities] = await this.client.sscan(this.entitiesKey(), cursor, 'COUNT', 100);
      cursor = next;
      for (const entityId of entities) {
        if (removed >= limit) return removed;
        removed += (await SWEEP.run(this.client, this.rowKeys(entityId), [
          now,
          limit - removed,
        ])) as number;
        if ((await this.client.exists(this.entityKeys(entityId).records)) === 0)
          await this.client.srem(this.entitiesKey(), entityId);
      }
    } while (cursor !== '0');
    return removed;
  }

  private entityKeys(entityId: string) {
    return longtermRedisKeys(this.keyPrefix, entityId);
  }

  /** Records hash, live-keys set, expiry set. */
  private rowKeys(entityId: string): [string, string, string] {
    const keys = this.entityKeys(entityId);
    return [keys.records, keys.live, keys.expiry];
  }

  /** The row keys and the erasure mark. */
  private writeKeys(entityId: string): string[] {
    return [...this.rowKeys(entityId), this.entityKeys(entityId).erased];
  }

  private entitiesKey(): string {
    return `${this.keyPrefix}entities`;
  }
}

function parse(entityId: string, key: string, record: string): StoredRow {
  const match = /^(\d+):(\d+):(\d+):([\s\S]*)$/.exec(record)!;
  const expiresAt = Number(match[3]);
  return {
    entityId,
    key,
    value: match[4]!,
    seq: Number(match[1]),
    updatedAt: Number(match[2]),
    expiresAt: expiresAt >= NEVER_EXPIRES ? null : expiresAt,
  };
}
