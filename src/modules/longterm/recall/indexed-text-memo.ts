import { randomBytes } from 'node:crypto';

/** Records remembered: between this many and twice as many (two generations). */
export const MEMO_RECORDS = 2_048;
/**
 * Longer sources are analyzed on every save. 512 characters give at most about 1,560 words (three
 * per character at the very most, after decomposition), under the 2,000 a record's text is cut to:
 * a remembered source was never cut, so its words do not depend on how its keys were ordered.
 */
export const MEMO_MAX_SOURCE_LENGTH = 512;
/**
 * Longer indexed texts are not remembered (decomposition and stems can make one far longer than its
 * source). With the two limits above, a memo holds at most about 12 MiB; a few hundred KiB for
 * short facts.
 */
export const MEMO_MAX_INDEXED_LENGTH = 1_024;
/** Bits of the doorkeeper: which records were seen (by hash) since it was last cleared. */
const DOORKEEPER_BITS = 1 << 20;
/** Sightings after which the doorkeeper is cleared (it is then at most about 12 % set). */
const DOORKEEPER_SIGHTINGS = 1 << 17;

interface Remembered {
  readonly source: string;
  readonly indexed: string;
}

/**
 * One store's memo of the indexed text of the records it saved last, by entity and key, with the
 * source it was made from (the record's text, or its canonical JSON where the store's text is a
 * function of the value alone): a record saved again with the same source (what a tier of
 * profiles and facts mostly does) is not analyzed again. Kept per store and per record, not per
 * text, so that how fast one entity's save runs does not tell whether another entity, or another
 * store, holds the same text. Analysis is a pure function of its text (for the store's analyzer),
 * so a remembered answer is the one analysis would give. Two generations: when the newer one is
 * full it becomes the older one, and the older one is dropped. A record is remembered from its
 * second save on (a doorkeeper bit set, by a hash seeded per memo, at its first): records saved
 * once, as in an import, cost a hash each, not a place in the memo (which the garbage collector
 * would have to carry); a hash shared by two records only lets one in early.
 */
export class IndexedTextMemo {
  /** Entity → key → what was remembered; each generation counts its records. */
  private newer = new Map<string, Map<string, Remembered>>();
  private older = new Map<string, Map<string, Remembered>>();
  private newerSize = 0;
  private doorkeeper: Uint32Array | undefined;
  private sightings = 0;
  private readonly seed = randomBytes(4).readUInt32LE(0);

  /**
   * The remembered indexed text of the record `entityId`/`key` if it was made from `source`, else
   * `undefined` (then analyze, and {@link remember} the answer).
   */
  recall(entityId: string, key: string, source: string): string | undefined {
    if (source.length > MEMO_MAX_SOURCE_LENGTH) return undefined;
    const newer = this.newer.get(entityId)?.get(key);
    const remembered = newer ?? this.older.get(entityId)?.get(key);
    if (remembered === undefined || remembered.source !== source) return undefined;
    if (newer === undefined) this.keep(entityId, key, remembered);
    return remembered.indexed;
  }

  /** Remembers the record's indexed text made from `source` (from its second save on). */
  remember(entityId: string, key: string, source: string, indexed: string): void {
    if (source.length > MEMO_MAX_SOURCE_LENGTH || indexed.length > MEMO_MAX_INDEXED_LENGTH) return;
    const known =
      this.newer.get(entityId)?.has(key) === true || this.older.get(entityId)?.has(key) === true;
    if (!known && !this.seenBefore(entityId, key)) return;
    // A copy: a source cut from a longer string (`slice`, `split`) would keep all of it alive.
    this.keep(entityId, key, { source: ` ${source}`.slice(1), indexed });
  }

  private keep(entityId: string, key: string, entry: Remembered): void {
    if (this.newerSize >= MEMO_RECORDS) {
      this.older = this.newer;
      this.newer = new Map();
      this.newerSize = 0;
    }
    let keys = this.newer.get(entityId);
    if (keys === undefined) this.newer.set(entityId, (keys = new Map()));
    const size = keys.size;
    keys.set(key, entry);
    this.newerSize += keys.size - size;
  }

  /** Whether the record was seen since the doorkeeper was cleared; marks it seen. */
  private seenBefore(entityId: string, key: string): boolean {
    this.doorkeeper ??= new Uint32Array(DOORKEEPER_BITS / 32);
    if (++this.sightings > DOORKEEPER_SIGHTINGS) {
      this.doorkeeper.fill(0);
      this.sightings = 1;
    }
    const bit = recordHash(this.seed, entityId, key) & (DOORKEEPER_BITS - 1);
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    if ((this.doorkeeper[word]! & mask) !== 0) return true;
    this.doorkeeper[word]! |= mask;
    return false;
  }
}

/** FNV-1a (32 bits, from a seeded basis) of the entity id, a separator and the key. */
function recordHash(seed: number, entityId: string, key: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < entityId.length; i += 1)
    hash = Math.imul(hash ^ entityId.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash, 0x01000193);
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
