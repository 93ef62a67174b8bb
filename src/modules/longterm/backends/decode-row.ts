import type { LongtermRecord } from '../interfaces/longterm-store.interface.js';
import type { StoredRow } from './stored-row.js';

/** A stored row as the record the store answers: its value parsed, numbers as numbers. */
export function decode(row: StoredRow): LongtermRecord {
  return {
    entityId: row.entityId,
    key: row.key,
    value: JSON.parse(row.value) as LongtermRecord['value'],
    seq: Number(row.seq),
    updatedAt: Number(row.updatedAt),
    ...(row.expiresAt === null || row.expiresAt === undefined
      ? {}
      : { expiresAt: Number(row.expiresAt) }),
  };
}
