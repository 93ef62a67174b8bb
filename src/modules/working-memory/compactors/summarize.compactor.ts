import { contentText } from '../../../common/messages/content-parts.js';
import { createHash } from 'node:crypto';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { SummaryCache } from '../interfaces/working-memory.interface.js';

/**
 * What the compactor needs of a model: one chat call. Every `LlmAdapter` is one (working memory sits
 * below the LLM layer, so it names only the shape it uses).
 */
export interface SummaryModel {
  chat(request: {
    messages: ChatMessage[];
  }): Promise<{ message: { content: ChatMessage['content'] } }>;
}

/** Options of {@link SummarizeCompactor}. */
export interface SummarizeCompactorOptions {
  /** The model that writes summaries: any `LlmAdapter`. */
  llm: SummaryModel;
  /** Newest items of a ring kept as they are (default 8). */
  keepRecent?: number;
  instructions?: string;
  /** Rings whose key starts with any of these are never folded (default none). */
  protectedPrefixes?: string[];
  /** Summaries kept in process memory by content, for uses outside an agent run (default 1,000). */
  cacheSize?: number;
}

/** The first item of a compacted ring. */
export interface RingSummary {
  summary: string;
}

const DEFAULT_INSTRUCTIONS =
  'Summarize these notes for later use. Keep facts, names and numbers. Answer with the summary only.';

/**
 * Opt-in compactor: folds a ring's items older than `keepRecent` into one summary item through the
 * model — only if the result is smaller. Protected prefixes are never folded. A summary is looked up
 * by content in the handle's summary cache (inside an agent run: the run cache, so a replay on any
 * worker folds to the same bytes without calling the model), else in a small process-local cache.
 */
export class SummarizeCompactor {
  readonly keepRecent: number;
  readonly protectedPrefixes: readonly string[];
  private readonly local = new Map<string, string>();

  constructor(private readonly options: SummarizeCompactorOptions) {
    this.keepRecent = options.keepRecent ?? 8;
    this.protectedPrefixes = [...(options.protectedPrefixes ?? [])];
  }

  /** Whether the ring at `key` may be folded. */
  mayFold(key: string): boolean {
    return !this.protectedPrefixes.some((prefix) => key.startsWith(prefix));
  }

  /** The ring folded, or `undefined` if there is nothing to fold or the fold is not smaller. */
  async fold(items: unknown[], cache?: SummaryCache): Promise<unknown[] | undefined> {
    if (items.length <= this.keepRecent + 1) return undefined;
    const older = items.slice(0, items.length - this.keepRecent);
    const olderJson = JSON.stringify(older);
    const key = createHash('sha256').update(olderJson).digest('hex');
    const compute = () => this.summarize(olderJson);
    const summary = await (cache ? cache(key, compute) : this.cachedLocally(key, compute));
    const folded = [
      { summary } satisfies RingSummary,
      ...items.slice(items.length - this.keepRecent),
    ];
    return JSON.stringify(folded).length < JSON.stringify(items).length ? folded : undefined;
  }

  private async cachedLocally(key: string, compute: () => Promise<string>): Promise<string> {
    const cached = this.local.get(key);
    if (cached !== undefined) return cached;
    const summary = await compute();
    this.local.set(key, summary);
    while (this.local.size > (this.options.cacheSize ?? 1_000))
      this.local.delete(this.local.keys().next().value!);
    return summary;
  }

  private async summarize(olderJson: string): Promise<string> {
    const { message } = await this.options.llm.chat({
      messages: [
        { role: 'system', content: this.options.instructions ?? DEFAULT_INSTRUCTIONS },
        { role: 'user', content: olderJson },
      ],
    });
    return contentText(message.content).trim();
  }
}
