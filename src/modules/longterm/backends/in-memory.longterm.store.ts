import { compareCodePoints } from '../../../common/canonical-json.js';
import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { InMemorySeqCounter } from './seq-counters.js';
import {
  BaseLongtermStore,
  type LongtermStoreSettings,
  type ScoredRow,
  type StoredRow,
} from './base-longterm.store.js';
import { Bm25Index } from '../recall/bm25-index.js';
import type { TextMatch } from '../recall/text-match.js';
import type { PreparedEmbedding, VectorMatch } from '../recall/vector-match.js';
import type { VectorCandidate } from './vector-scan.js';
import { decodeRowCursor, pageAfter } from './row-cursor.js';

/**
 * Process-local long-term store (`memory://`): a map per entity; a search filters the entity's keys
 * by the prefix range and sorts them in code-point order; a text search ranks the entity's records
 * with BM25 on an inverted index kept per entity. Not durable, not shared.
 */
export class InMemoryLongtermStore extends BaseLongtermStore {
  protected readonly system = 'memory' as const;
  private readonly entities = new Map<string, Map<string, PreparedRecord>>();
  /** Each entity's text index: the indexed text of its records (tombstones are not in it). */
  private readonly indexes = new Map<string, Bm25Index>();
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
      if (applies) {
        entity.set(row.key, { ...row });
        this.indexOf(row.entityId).set(row.key, row.text ?? '');
      }
      return applies;
    });
  }

  private indexOf(entityId: string): Bm25Index {
    let index = this.indexes.get(entityId);
    if (!index) this.indexes.set(entityId, (index = new Bm25Index()));
    return index;
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

  protected async readMatches(
    entityId: string,
    match: TextMatch,
    now: number,
  ): Promise<ScoredRow[]> {
    const entity = this.entities.get(entityId);
    const index = this.indexes.get(entityId);
    if (!entity || !index) return [];
    return index
      .search(match.words, (key) => {
        const row = entity.get(key)!;
        return isLive(row, now) && inFilter(row, match);
      })
      .slice(0, match.limit)
      .map(({ key, score }) => ({ ...toRow(entity.get(key)!), score }));
  }

  protected async readVectors(
    entityId: string,
    match: VectorMatch,
    now: number,
  ): Promise<VectorCandidate[]> {
    const found: VectorCandidate[] = [];
    for (const row of this.entities.get(entityId)?.values() ?? [])
      if (
        row.embedding?.model === match.model &&
        row.embedding.bytes.length > 0 &&
        isLive(row, now) &&
        inFilter(row, match)
      )
        found.push({ key: row.key, embedding: row.embedding.bytes });
    return found;
  }

  protected async readMany(entityId: string, keys: string[], now: number): Promise<StoredRow[]> {
    const entity = this.entities.get(entityId);
    const rows: StoredRow[] = [];
    for (const key of keys) {
      const row = entity?.get(key);
      if (row && isLive(row, now)) rows.push(toRow(row));
    }
    return rows;
  }

  protected async readUnembedded(
    model: string,
    limit: number,
    cursor: string | undefined,
    now: number,
  ): Promise<{ rows: StoredRow[]; cursor?: string }> {
    const after = cursor === undefined ? undefined : decodeRowCursor(cursor);
    const pending: PreparedRecord[] = [];
    for (const entity of this.entities.values())
      for (const row of entity.values())
        if (
          isLive(row, now) &&
          row.embedding?.model !== model &&
          (!after || compareRowPosition(row, after) > 0)
        )
          pending.push(row);
    return pageAfter(pending.sort(compareRowPosition).slice(0, limit).map(toRow), limit);
  }

  protected async writeEmbeddings(updates: PreparedEmbedding[], now: number): Promise<boolean[]> {
    return updates.map((update) => {
      const row = this.entities.get(update.entityId)?.get(update.key);
      if (!row || !isLive(row, now) || row.seq !== update.seq || row.value !== update.value)
        return false;
      row.embedding = { model: update.model, bytes: update.bytes };
      return true;
    });
  }

  protected async eraseEntity(entityId: string): Promise<void> {
    let mark = Math.max(this.erased.get(entityId) ?? 0, this.counter?.current(entityId) ?? 0);
    for (const row of this.entities.get(entityId)?.values() ?? []) mark = Math.max(mark, row.seq);
    this.entities.delete(entityId);
    this.indexes.delete(entityId);
    this.erased.set(entityId, mark);
    this.counter?.raise(entityId, mark);
  }

  protected async removeExpired(limit: number, now: number): Promise<number> {
    let removed = 0;
    for (const [entityId, entity] of this.entities) {
      for (const [key, row] of entity) {
        if (removed >= limit) return removed;
        if (isExpired(row, now)) {
          entity.delete(key);
          this.indexes.get(entityId)?.remove(key);
          removed += 1;
        }
      }
    }
    return removed;
  }
}

/** Whether the row is within a search's key range and time range. */
function inFilter(row: PreparedRecord, match: Omit<TextMatch, 'words'>): boolean {
  return (
    compareCodePoints(row.key, match.lower) >= 0 &&
    (match.upper === undefined || compareCodePoints(row.key, match.upper) < 0) &&
    row.updatedAt >= match.updatedFrom &&
    row.updatedAt < match.updatedTo
  );
}

/** (entity, key) order, by code point. */
function compareRowPosition(
  a: { entityId: string; key: string },
  b: { entityId: string; key: string },
): number {
  return compareCodePoints(a.entityId, b.entityId) || compareCodePoints(a.key, b.key);
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
