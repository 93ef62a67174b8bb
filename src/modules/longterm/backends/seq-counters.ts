import type { RedisClient } from '../../connections/redis/redis-client.js';
import type { SqlConnection } from '../../connections/connection-registry.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import type { SeqCounter } from '../interfaces/longterm-store.interface.js';
import { assertEntityId } from '../validation/longterm-arguments.js';
import { DEFAULT_LONGTERM_REDIS_PREFIX, longtermRedisKeys } from './redis-keys.js';

/** Process-local counters (`memory://`). */
export class InMemorySeqCounter implements SeqCounter {
  private readonly values = new Map<string, number>();

  async next(entityId: string): Promise<number> {
    assertEntityId(entityId);
    const value = (this.values.get(entityId) ?? 0) + 1;
    this.values.set(entityId, value);
    return value;
  }

  /** The last value handed out (0 if none). */
  current(entityId: string): number {
    return this.values.get(entityId) ?? 0;
  }

  /** Makes the next value at least `floor + 1` (an erasure mark). */
  raise(entityId: string, floor: number): void {
    if (this.current(entityId) < floor) this.values.set(entityId, floor);
  }
}

const UPSERT: Record<SqlConnection['dialect'], string> = {
  postgres: `INSERT INTO agent_longterm_counters (entity_id, value) VALUES ($1, 1)
    ON CONFLICT (entity_id) DO UPDATE SET value = agent_longterm_counters.value + 1 RETURNING value`,
  // MariaDB's RETURNING gives the row as it ends up, after the update too.
  mysql: `INSERT INTO agent_longterm_counters (entity_id, value) VALUES (?, 1)
    ON DUPLICATE KEY UPDATE value = value + 1 RETURNING value`,
  sqlite: `INSERT INTO agent_longterm_counters (entity_id, value) VALUES (?, 1)
    ON CONFLICT (entity_id) DO UPDATE SET value = value + 1 RETURNING value`,
};

/** Durable counters in `agent_longterm_counters`: one atomic upsert per call. */
export class SqlSeqCounter implements SeqCounter {
  private readonly next_: (entityId: string) => Promise<number>;

  constructor({ dataSource, dialect }: SqlConnection) {
    if (dialect === 'sqlite') {
      const statement = sqliteHandle(dataSource).prepare(UPSERT.sqlite).pluck();
      this.next_ = async (entityId) => Number(statement.get(entityId));
    } else {
      const sql: SqlExecutor = createSqlExecutor(dataSource, dialect);
      this.next_ = async (entityId) =>
        Number(
          (await sql<{ value: string | number }>('lt_seq', UPSERT[dialect], [entityId]))[0]!.value,
        );
    }
  }

  next(entityId: string): Promise<number> {
    assertEntityId(entityId);
    return this.next_(entityId);
  }
}

/** Counters on Redis: `INCR`, durable as far as the server persists. */
export class RedisSeqCounter implements SeqCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly keyPrefix = DEFAULT_LONGTERM_REDIS_PREFIX,
  ) {}

  async next(entityId: string): Promise<number> {
    assertEntityId(entityId);
    return this.client.incr(longtermRedisKeys(this.keyPrefix, entityId).counter);
  }
}
