import type { PreparedRecord } from '../validation/longterm-arguments.js';
import { packRedisVector } from './redis-longterm-vectors.js';
import { NEVER_EXPIRES, TOMBSTONE } from './sql-row-format.js';

/**
 * About the most characters (before JSON escapes them) of rows one part of a packed batch holds.
 * V8 makes a string past about 128 KB a large object, in fresh memory each time: packing 1,000
 * rows with their index entries (about 159,000 characters) as one JSON text took 0.72–1.04 ms
 * here, half of it the kernel's (fresh pages), and about half as long in parts. Values full of
 * quotes or of characters beyond Latin-1 grow when escaped (two bytes a character): parts stay
 * well below the limit all the same.
 */
export const PART_CHARACTERS = 16_384;
/** A row's characters besides its key, value, index entry and vector (JSON quotes, numbers). */
const ROW_OVERHEAD = 64;

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
class NumberText {
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

/**
 * The rows as the write script reads them: JSON arrays of seven strings per row (key, seq,
 * updatedAt, expiresAt, value, index entry, vector), in order, a new array once one holds about
 * {@link PART_CHARACTERS} characters.
 */
export function packRows(rows: readonly PreparedRecord[]): string[] {
  const parts: string[] = [];
  // A batch's rows mostly share their timestamps (epoch ms, beyond V8's small integers, whose
  // conversion to text costs more than the rest of a row): each distinct one is written once.
  const updatedAt = new NumberText();
  const expiresAt = new NumberText();
  let packed: string[] = [];
  let characters = 0;
  for (const row of rows) {
    const value = row.value ?? TOMBSTONE;
    const entry = indexEntry(row.text);
    const vector = packRedisVector(row.embedding);
    packed.push(
      row.key,
      String(row.seq),
      updatedAt.of(row.updatedAt),
      expiresAt.of(row.expiresAt ?? NEVER_EXPIRES),
      value,
      entry,
      vector,
    );
    characters += row.key.length + value.length + entry.length + vector.length + ROW_OVERHEAD;
    if (characters >= PART_CHARACTERS) {
      parts.push(JSON.stringify(packed));
      packed = [];
      characters = 0;
    }
  }
  if (packed.length > 0) parts.push(JSON.stringify(packed));
  return parts;
}

/**
 * A row's entry in the text index as the index stores it, `<word count> <words>` (`''`: no text):
 * made here, so the write script compares it with the stored entry as it is, without counting or
 * joining anything per row. The words are the analyzer's, one space between two.
 */
export function indexEntry(text: string | null): string {
  if (!text) return '';
  let words = 1;
  for (let i = text.indexOf(' '); i !== -1; i = text.indexOf(' ', i + 1)) words += 1;
  return `${words} ${text}`;
}
