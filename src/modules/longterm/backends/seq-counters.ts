import type { Redis } from 'ioredis';
import type { SqlConnection } from '../../connections/connection-registry.js';
import { type SqlExecutor, createSqlExecutor } from '../../connections/sql/sql-executor.js';
import { sqliteHandle } from '../../connections/sql/sqlite-handle.js';
import type { SeqCounter } from '../interfaces/longterm-store.interface.js';
import { assertEntityId } from '../validation/longterm-arguments.js';

/** Process-local counters (`memory://`). */
export class InMemorySeqCounter implements SeqCounter {
  private readonly values = new Map<string, number>();

  async next(entityId: string): Promise<number> {
    assertEntityId(entityId);
    const value = (this.values.get(entityId) ?? 0) + 1;
    this.values.set(entityId, value);
    return value;
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
    private readonly client: Redis,
    private readonly keyPrefix = 'agent-memory:longterm:',
  ) {}

  async next(entityId: string): Promise<number> {
    assertEntityId(entityId);
    return this.client.incr(`${this.keyPrefix}{${entityId}}:seq`);
  }
}
