import { compareCodePoints } from '../../../common/canonical-json.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { InMemorySeqCounter } from './seq-counters.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type StoredRow,
} from './base-longterm.store.js';

/**
 * Process-local long-term store (`memory://`): a map per entity; a search filters the entity's keys
 * by the prefix range and sorts them in code-point order. Not durable, not shared.
 */
export class InMemoryLongtermStore extends BaseLongtermStore {
  protected readonly system = 'memory' as const;
  private readonly entities = new Map<string, Map<string, PreparedRecord>>();
  /** Erasure marks: every later write of the entity must have a higher seq. */
  private readonly erased = new Map<string, number>();

  /** @param counter the tier's counter, raised past an erasure mark (the module passes its own) */
  constructor(
    settings?: LongtermStoreSettings,
    private readonly counter?: InMemorySeqCounter,
  ) {
    super(settings);
  }

  protected async writeBatch(rows: PreparedRecord[], now: number): Promise<boolean[]> {
    return rows.map((row) => {
      if (row.seq <= (this.erased.get(row.entityId) ?? -1)) return false;
      const entity = this.entities.get(row.entityId) ?? new Map<string, PreparedRecord>();
      this.entities.set(row.entityId, entity);
      const stored = entity.get(row.key);
      const applies = !stored || isExpired(stored, now) || row.seq >= stored.seq;
      if (applies) entity.set(row.key, { ...row });
      return applies;
    });
  }

  protected async readOne(entityId: string, key: string, now: number): Promise<StoredRow | null> {
    const stored = this.entities.get(entityId)?.get(key);
    return stored && isLive(stored, now) ? toRow(stored) : null;
  }

  protected async readRange(
    entityId: string,
    lower: string,
    upper: string | undefined,
    limit: number,
    now: number,
  ): Promise<StoredRow[]> {
    const entity = this.entities.get(entityId);
    if (!entity) return [];
    return [...entity.values()]
      .filter(
        (row) =>
          compareCodePoints(row.key, lower) >= 0 &&
          (upper === undefined || compareCodePoints(row.key, upper) < 0) &&
          isLive(row, now),
      )
      .sort((a, b) => compareCodePoints(a.key, b.key))
      .slice(0, limit)
      .map(toRow);
  }

  protected async eraseEntity(entityId: string): Promise<void> {
    let mark = Math.max(this.erased.get(entityId) ?? 0, this.counter?.current(entityId) ?? 0);
    for (const row of this.entities.get(entityId)?.values() ?? []) mark = Math.max(mark, row.seq);
    this.entities.delete(entityId);
    this.erased.set(entityId, mark);
    this.counter?.raise(entityId, mark);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    let removed = 0;
    for (const entity of this.entities.values()) {
      for (const [key, row] of entity) {
        if (removed >= limit) return removed;
        if (isExpired(row, now)) {
          entity.delete(key);
          removed += 1;
        }
      }
    }
    return removed;
  }
}

function isExpired(row: PreparedRecord, now: number): boolean {
  return row.expiresAt !== null && row.expiresAt <= now;
}

function isLive(row: PreparedRecord, now: number): boolean {
  return row.value !== null && !isExpired(row, now);
}

function toRow(row: PreparedRecord): StoredRow {
  return {
    entityId: row.entityId,
    key: row.key,
    value: row.value!,
    seq: row.seq,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
  };
}
