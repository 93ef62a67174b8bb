/** How long an entity's record count is reused by text searches (30 s). */
const COUNT_TTL_MS = 30_000;
/** Most entities whose count is kept (the oldest go first). */
const MAX_COUNTED = 10_000;

/**
 * The entities' record counts (BM25's N) as text searches last counted them, reused for 30 s:
 * counting an entity's live rows reads all of them, which would cost more than the search. A count
 * that much out of date moves scores by little, and never below a word's frequency (the search
 * takes the larger).
 */
export class EntityCounts {
  private readonly counts = new Map<string, { n: number; at: number }>();

  /** The entity's count, if counted in the last 30 s. */
  get(entityId: string, now: number): number | null {
    const known = this.counts.get(entityId);
    if (!known || now - known.at >= COUNT_TTL_MS) return null;
    return known.n;
  }

  /** Keeps a count the search made. */
  set(entityId: string, n: number, now: number): void {
    this.counts.delete(entityId);
    this.counts.set(entityId, { n, at: now });
    if (this.counts.size > MAX_COUNTED) this.counts.delete(this.counts.keys().next().value!);
  }

  /** Forgets an entity's count (it was erased). */
  forget(entityId: string): void {
    this.counts.delete(entityId);
  }
}
