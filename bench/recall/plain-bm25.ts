/**
 * The baseline: textbook Okapi BM25 (k1 1.2, b 0.75) over lower-cased text split at white space, or
 * at every character that is not an ASCII letter or digit — nothing else (no stems, no stop words,
 * no accent folding): the floor any recall must beat.
 */
export class PlainBm25 {
  constructor(private readonly tokenizer: 'whitespace' | 'alphanumeric' = 'alphanumeric') {}

  private words(text: string): string[] {
    return text
      .toLowerCase()
      .split(this.tokenizer === 'whitespace' ? /\s+/ : /[^a-z0-9]+/)
      .filter(Boolean);
  }

  private readonly docs: Array<{ id: string; tf: Map<string, number>; length: number }> = [];
  private readonly df = new Map<string, number>();
  private total = 0;

  add(id: string, text: string): void {
    const words = this.words(text);
    const tf = new Map<string, number>();
    for (const word of words) tf.set(word, (tf.get(word) ?? 0) + 1);
    for (const word of tf.keys()) this.df.set(word, (this.df.get(word) ?? 0) + 1);
    this.docs.push({ id, tf, length: words.length });
    this.total += words.length;
  }

  search(query: string, k: number): string[] {
    const words = [...new Set(this.words(query))];
    const n = this.docs.length;
    const average = this.total / n;
    return this.docs
      .map((doc) => {
        let score = 0;
        for (const word of words) {
          const tf = doc.tf.get(word);
          if (!tf) continue;
          const df = this.df.get(word)!;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / average));
        }
        return { id: doc.id, score };
      })
      .filter((hit) => hit.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((hit) => hit.id);
  }
}
