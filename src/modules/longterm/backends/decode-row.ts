import type { LongtermRecord } from '../interfaces/longterm-store.interface.js';
import type { StoredRow } from './stored-row.js';

/** A stored row as the record the store answers: its value parsed, numbers as numbers. */
export function decode(row: StoredRow): LongtermRecord {
  const record: LongtermRecord = {
    entityId: row.entityId,
    key: row.key,
    value: JSON.parse(row.value) as LongtermRecord['value'],
    seq: Number(row.seq),
    updatedAt: Number(row.updatedAt),
  };
  // Set, not spread: a conditional spread costs an object copy per row.
  if (row.expiresAt !== null && row.expiresAt !== undefined)
    record.expiresAt = Number(row.expiresAt);
  return record;
}
