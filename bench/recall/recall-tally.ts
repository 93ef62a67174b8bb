import type { LocomoQuestion } from './locomo.js';

/** LoCoMo's question categories 1–4, by number. */
export const CATEGORIES = ['multi-hop', 'temporal', 'open-domain', 'single-hop'] as const;
const K = [5, 10] as const;

/** Recall@5 and @10 of one list, overall and per category. */
export class RecallTally {
  private readonly hits = new Map<string, number>();
  private readonly totals = new Map<string, number>();

  /** Counts a question: recalled at k when one of the first k keys is in its evidence. */
  add(question: LocomoQuestion, keys: readonly string[]): void {
    const evidence = new Set(question.evidence.map((id) => id.trim()));
    for (const k of K) {
      const hit = keys.slice(0, k).some((key) => evidence.has(key));
      for (const bucket of ['all', CATEGORIES[question.category - 1]!]) {
        const name = `${bucket}@${k}`;
        this.totals.set(name, (this.totals.get(name) ?? 0) + 1);
        if (hit) this.hits.set(name, (this.hits.get(name) ?? 0) + 1);
      }
    }
  }

  /** Recall at k, in percent with one decimal. */
  rate(bucket: string, k: number): string {
    const name = `${bucket}@${k}`;
    return (((this.hits.get(name) ?? 0) / (this.totals.get(name) ?? 1)) * 100).toFixed(1);
  }
}

/** Prints the tallies as a Markdown table, one row per list. */
export function printTallies(tallies: ReadonlyMap<string, RecallTally>): void {
  console.log(
    `| list | recall@5 | recall@10 | ${CATEGORIES.map((c) => `${c} @5 / @10`).join(' | ')} |`,
  );
  console.log(`|---|---:|---:|${CATEGORIES.map(() => '---:').join('|')}|`);
  for (const [name, tally] of tallies)
    console.log(
      `| ${name} | ${tally.rate('all', 5)} % | ${tally.rate('all', 10)} % | ${CATEGORIES.map((c) => `${tally.rate(c, 5)} / ${tally.rate(c, 10)}`).join(' | ')} |`,
    );
}
