import { createHash } from 'node:crypto';
import type { LlmAdapter } from '../../kernel/interfaces/llm.interface.js';

/** Options of {@link SummarizeCompactor}. */
export interface SummarizeCompactorOptions {
  llm: LlmAdapter;
  /** Newest items of a ring kept as they are (default 8). */
  keepRecent?: number;
  instructions?: string;
  /** Summaries kept in memory for replay, by content (default 1,000). */
  cacheSize?: number;
}

/** The first item of a compacted ring. */
export interface RingSummary {
  summary: string;
}

const DEFAULT_INSTRUCTIONS =
  'Summarize these notes for later use. Keep facts, names and numbers. Answer with the summary only.';

/**
 * Opt-in compactor (DESIGN §9): folds a ring's items older than `keepRecent` into one summary item
 * through the model — only if the result is smaller. Summaries are cached by content, so a
 * replayed run folds to the same bytes without calling the model again.
 */
export class SummarizeCompactor {
  readonly keepRecent: number;
  private readonly cache = new Map<string, string>();

  constructor(private readonly options: SummarizeCompactorOptions) {
    this.keepRecent = options.keepRecent ?? 8;
  }

  /** The ring folded, or `undefined` if there is nothing to fold or the fold is not smaller. */
  async fold(items: unknown[]): Promise<unknown[] | undefined> {
    if (items.length <= this.keepRecent + 1) return undefined;
    const older = items.slice(0, items.length - this.keepRecent);
    const summary = await this.summarize(JSON.stringify(older));
    const folded = [
      { summary } satisfies RingSummary,
      ...items.slice(items.length - this.keepRecent),
    ];
    return JSON.stringify(folded).length < JSON.stringify(items).length ? folded : undefined;
  }

  private async summarize(olderJson: string): Promise<string> {
    const key = createHash('sha256').update(olderJson).digest('hex');
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const { message } = await this.options.llm.chat({
      messages: [
        { role: 'system', content: this.options.instructions ?? DEFAULT_INSTRUCTIONS },
        { role: 'user', content: olderJson },
      ],
    });
    const summary = (message.content ?? '').trim();
    this.cache.set(key, summary);
    while (this.cache.size > (this.options.cacheSize ?? 1_000))
      this.cache.delete(this.cache.keys().next().value!);
    return summary;
  }
}
