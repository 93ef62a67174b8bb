import type { PreparedRecord } from '../validation/longterm-arguments.js';

/** One entity's rows of a batch, and where they stand in it. */
export interface EntityRows {
  entityId: string;
  rows: PreparedRecord[];
  indexes: number[];
  /** Whether a row expires (a TTL, or a delete's tombstone). */
  expiring: boolean;
}

/** The batch's rows by entity, in order of first appearance. */
export function groupByEntity(rows: PreparedRecord[]): EntityRows[] {
  const groups = new Map<string, EntityRows>();
  rows.forEach((row, index) => {
    let group = groups.get(row.entityId);
    if (!group)
      groups.set(
        row.entityId,
        (group = { entityId: row.entityId, rows: [], indexes: [], expiring: false }),
      );
    group.rows.push(row);
    group.indexes.push(index);
    if (row.expiresAt !== null) group.expiring = true;
  });
  return [...groups.values()];
}

/** The script's verdicts ('1' applied, '0' refused), one per row. */
export function verdicts(flags: string): boolean[] {
  const applied: boolean[] = new Array(flags.length);
  for (let i = 0; i < flags.length; i += 1) applied[i] = flags[i] === '1';
  return applied;
}

/** `String(n)`, remembering the last number it converted. */
export class NumberText {
  private last = Number.NaN;
  private text = '';

  of(n: number): string {
    if (n !== this.last) {
      this.last = n;
      this.text = String(n);
    }
    return this.text;
  }
}
