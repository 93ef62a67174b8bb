/**
 * The `k` best of a stream of scored items (highest score first, ties by `tieBreak`), kept in a
 * sorted array of at most `k`: O(n log k) comparisons, O(k) memory, whatever the stream's length.
 */
export class TopK<T> {
  private readonly items: Array<{ item: T; score: number }> = [];

  constructor(
    private readonly k: number,
    private readonly tieBreak: (a: T, b: T) => number,
  ) {}

  /** Considers one item. */
  offer(item: T, score: number): void {
    const { items } = this;
    if (items.length === this.k && !this.before({ item, score }, items[items.length - 1]!)) return;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.before(items[middle]!, { item, score })) low = middle + 1;
      else high = middle;
    }
    items.splice(low, 0, { item, score });
    if (items.length > this.k) items.pop();
  }

  /** The best items, best first. */
  sorted(): Array<{ item: T; score: number }> {
    return [...this.items];
  }

  private before(a: { item: T; score: number }, b: { item: T; score: number }): boolean {
    return a.score > b.score || (a.score === b.score && this.tieBreak(a.item, b.item) < 0);
  }
}
