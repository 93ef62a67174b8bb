/** Reciprocal rank fusion's constant: a hit ranked r in a list adds 1 / (RRF_K + r). */
export const RRF_K = 60;

/** A ranked list's items, best first, each named by an id. */
export interface RankedList<T> {
  name: string;
  items: ReadonlyArray<{ id: string; item: T; score: number }>;
}

/** One fused item: its fused score and, per list that held it, its 1-based rank and score there. */
export interface FusedItem<T> {
  id: string;
  item: T;
  score: number;
  ranks: Record<string, { rank: number; score: number }>;
}

/**
 * Reciprocal rank fusion (Cormack et al., 2009) of ranked lists: each item scores the sum over
 * the lists holding it of 1 / ({@link RRF_K} + rank); best first, ties by id (code-unit order). The
 * item kept is the first list's that holds it.
 */
export function fuseRankings<T>(
  lists: ReadonlyArray<RankedList<T>>,
  limit: number,
): FusedItem<T>[] {
  const fused = new Map<string, FusedItem<T>>();
  for (const list of lists) {
    list.items.forEach(({ id, item, score }, index) => {
      let entry = fused.get(id);
      if (!entry) fused.set(id, (entry = { id, item, score: 0, ranks: {} }));
      entry.score += 1 / (RRF_K + index + 1);
      entry.ranks[list.name] = { rank: index + 1, score };
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit);
}
