import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';

/** A position in (entity, key) order. */
export interface RowPosition {
  entityId: string;
  key: string;
}

/** The cursor of a page of rows that ends at `row` (opaque to callers). */
function encodeRowCursor(row: RowPosition): string {
  return Buffer.from(JSON.stringify([row.entityId, row.key])).toString('base64url');
}

/** The position a cursor of {@link encodeRowCursor} holds, or an `InvalidArgumentError`. */
export function decodeRowCursor(cursor: string): RowPosition {
  try {
    const [entityId, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if (typeof entityId === 'string' && typeof key === 'string') return { entityId, key };
  } catch {
    // refused below
  }
  throw new InvalidArgumentError('cursor', 'must be a cursor an earlier page gave');
}

/**
 * A page of `unembedded` rows and the cursor after its last row — none when the page came back
 * short (nothing follows).
 */
export function pageAfter<T extends RowPosition>(
  rows: T[],
  limit: number,
): { rows: T[]; cursor?: string } {
  const last = rows.at(-1);
  return { rows, ...(rows.length === limit && last ? { cursor: encodeRowCursor(last) } : {}) };
}

/** The position a cursor starts after (`undefined`: from the first row). */
export function startAfter(cursor: string | undefined): RowPosition {
  return cursor === undefined ? { entityId: '', key: '' } : decodeRowCursor(cursor);
}
