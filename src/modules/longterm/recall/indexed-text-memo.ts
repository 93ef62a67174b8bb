/** Records remembered: between this many and twice as many (two generations). */
export const MEMO_RECORDS = 2_048;
/**
 * Longer sources are analyzed on every save. With {@link MEMO_RECORDS}, this bounds the memo: at
 * most 4,096 records' sources of up to 512 characters and their indexed texts (each word and its
 * stem: at most about twice the source), about 12 MiB in the worst case; a few hundred KiB for
 * short facts.
 */
export const MEMO_MAX_SOURCE_LENGTH = 512;

/** Bits of the doorkeeper: which records were seen (by hash) since it was last cleared. */
const DOORKEEPER_BITS = 1 << 20;
/** Sightings after which the doorkeeper is cleared (it is then at most about 12 % set). */
const DOORKEEPER_SIGHTINGS = 1 << 17;

interface Remembered {
  readonly source: string;
  readonly indexed: string;
}

/**
 * The indexed text of the records saved last, by entity and key, with the source it was made from
 * (the record's text, or its canonical JSON when the text is a function of the value alone): a
 * record saved again with the same source (what a tier of profiles and facts mostly does) is not
 * analyzed again. Kept per record, not per text, so that how fast one entity's save runs does not
 * tell whether another entity holds the same text. Analysis is a pure function of its text (for a
 * given analyzer), so a remembered answer is the one analysis would give. Two generations: when the
 * newer one is full it becomes the older one, and the older one is dropped. A record is remembered
 * from its second save on (a doorkeeper bit set, by hash, at its first): records saved once, as
 * in an import, cost a hash each, not a place in the memo (which the garbage collector would have
 * to carry); a hash shared by two records only lets one in early.
 */
export class IndexedTextMemo {
  /** Entity → key → what was remembered; each generation counts its records. */
  private newer = new Map<string, Map<string, Remembered>>();
  private older = new Map<string, Map<string, Remembered>>();
  private newerSize = 0;
  private readonly doorkeeper = new Uint32Array(DOORKEEPER_BITS / 32);
  private sightings = 0;

  /**
   * The indexed text of the record `entityId`/`key` made from `source`: remembered, or
   * `analyze(text())` (`text` defaults to the source itself).
   */
  indexedText(
    entityId: string,
    key: string,
    source: string,
    analyze: (text: string) => string,
    text: () => string = () => source,
  ): string {
    if (source.length > MEMO_MAX_SOURCE_LENGTH) return analyze(text());
    const newer = this.newer.get(entityId)?.get(key);
    const remembered = newer ?? this.older.get(entityId)?.get(key);
    if (remembered !== undefined && remembered.source === source) {
      if (newer === undefined) this.remember(entityId, key, remembered);
      return remembered.indexed;
    }
    const indexed = analyze(text());
    if (remembered !== undefined || this.seenBefore(entityId, key))
      this.remember(entityId, key, { source, indexed });
    return indexed;
  }

  /** Whether the record was seen since the doorkeeper was cleared; marks it seen. */
  private seenBefore(entityId: string, key: string): boolean {
    if (++this.sightings > DOORKEEPER_SIGHTINGS) {
      this.doorkeeper.fill(0);
      this.sightings = 1;
    }
    const bit = recordHash(entityId, key) & (DOORKEEPER_BITS - 1);
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    if ((this.doorkeeper[word]! & mask) !== 0) return true;
    this.doorkeeper[word]! |= mask;
    return false;
  }

  private remember(entityId: string, key: string, entry: Remembered): void {
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
}

/** FNV-1a (32 bits) of the entity id, a separator and the key, by UTF-16 code unit. */
function recordHash(entityId: string, key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < entityId.length; i += 1)
    hash = Math.imul(hash ^ entityId.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ 0, 0x01000193);
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
