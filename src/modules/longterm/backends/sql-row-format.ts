import type { PreparedRecord } from '../validation/longterm-arguments.js';
import type { StoredRow } from './stored-row.js';

/** `expires_at` of a record that never expires: columns are NOT NULL, so guards are plain comparisons. */
export const NEVER_EXPIRES = Number.MAX_SAFE_INTEGER;

/** The stored value of a delete tombstone (canonical JSON is never empty). */
export const TOMBSTONE = '';

/**
 * The key of an entity's erasure mark row: its `seq` is the mark every later write must exceed.
 * Keys are never empty, so the mark cannot collide with a record; its value is a tombstone, so no
 * read returns it, and it never expires.
 */
export const ERASURE_MARK_KEY = '';

/**
 * A prepared record in column form: entity_id, key, value, seq, updated_at, expires_at, the
 * indexed text (`null` for a tombstone) in the dialect's indexed form (`indexForm`, default as is),
 * the vector's bytes and its model (`null`, `null` when it has none).
 */
export function toColumns(
  row: PreparedRecord,
  indexForm: (text: string) => string = (text) => text,
): [string, string, string, number, number, number, string | null, Buffer | null, string | null] {
  return [
    row.entityId,
    row.key,
    row.value ?? TOMBSTONE,
    row.seq,
    row.updatedAt,
    row.expiresAt ?? NEVER_EXPIRES,
    row.text === null ? null : indexForm(row.text),
    row.embedding?.bytes ?? null,
    row.embedding?.model ?? null,
  ];
}

/** A selected row (ids may come back as buffers from binary columns) as a `StoredRow`. */
export function fromColumns(row: Record<string, unknown>): StoredRow {
  const expiresAt = Number(row.expires_at);
  return {
    entityId: columnText(row.entity_id),
    key: columnText(row.key),
    value: columnText(row.value),
    seq: Number(row.seq),
    updatedAt: Number(row.updated_at),
    expiresAt: expiresAt >= NEVER_EXPIRES ? null : expiresAt,
  };
}

/** A text column as a driver returns it: MariaDB gives a binary (`VARBINARY`) column's bytes. */
export function columnText(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
