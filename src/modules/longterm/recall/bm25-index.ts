/** BM25's term-frequency saturation. */
export const BM25_K1 = 1.2;
/** BM25's length normalization. */
export const BM25_B = 0.75;

/** A document's score for a query. */
export interface ScoredKey {
  key: string;
  score: number;
}

/**
 * An in-process inverted index of documents (by key) scored with Okapi BM25 (k1 = 1.2, b = 0.75,
 * idf = ln(1 + (N − df + 0.5) / (df + 0.5))). A document is its indexed text: words separated by
 * single spaces.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Map<string, number>>();
  private readonly documents = new Map<string, { length: number; words: string[] }>();
  private totalLength = 0;

  /** How many documents it holds. */
  get size(): number {
    return this.documents.size;
  }

  /** Indexes `text` under `key`, replacing what the key held. */
  set(key: string, text: string): void {
    this.remove(key);
    const all = text.length === 0 ? [] : text.split(' ');
    if (all.length === 0) return;
    const counts = new Map<string, number>();
    for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
    for (const [word, count] of counts) {
      let posting = this.postings.get(word);
      if (!posting) this.postings.set(word, (posting = new Map()));
      posting.set(key, count);
    }
    this.documents.set(key, { length: all.length, words: [...counts.keys()] });
    this.totalLength += all.length;
  }

  /** Takes the key out of the index (nothing if it is not in it). */
  remove(key: string): void {
    const document = this.documents.get(key);
    if (!document) return;
    for (const word of document.words) {
      const posting = this.postings.get(word)!;
      posting.delete(key);
      if (posting.size === 0) this.postings.delete(word);
    }
    this.documents.delete(key);
    this.totalLength -= document.length;
  }

  /**
   * Every document holding at least one of `words`, with its BM25 score, best first (ties by key,
   * in code-unit order); `accept` drops documents before they are ranked.
   */
  search(words: readonly string[], accept: (key: string) => boolean = () => true): ScoredKey[] {
    const n = this.documents.size;
    if (n === 0) return [];
    const averageLength = this.totalLength / n;
    const scores = new Map<string, number>();
    for (const word of new Set(words)) {
      const posting = this.postings.get(word);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [key, tf] of posting) {
        const length = this.documents.get(key)!.length;
        const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
        scores.set(key, (scores.get(key) ?? 0) + (idf * tf * (BM25_K1 + 1)) / norm);
      }
    }
    const hits: ScoredKey[] = [];
    for (const [key, score] of scores) if (accept(key)) hits.push({ key, score });
    return hits.sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}
