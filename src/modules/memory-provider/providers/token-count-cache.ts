/** Characters of counted texts a cache holds at most, over all conversations (≈ 8 MB). */
const DEFAULT_MAX_CHARS = 4_000_000;
/** Texts longer than this are counted every time, not held (their count is bounded anyway). */
const DEFAULT_MAX_TEXT_CHARS = 32_000;

/** Counts the tokens of a text (the token budget's `TokenCounter`). */
type Count = (text: string) => number;

interface ConversationCounts {
  readonly counts: Map<string, number>;
  chars: number;
}

/**
 * The token counts of texts already counted, per conversation. Each turn reads its history anew
 * from the store — new message objects whose texts earlier turns counted — and tokenizing them again
 * was most of a turn's own CPU on a long conversation. Per conversation, so that no conversation's
 * timing can tell whether another one holds a text; bounded by the characters held (the least
 * recently used conversations go first). A counter is a function of the text alone, so a held count
 * is the count.
 */
export class TokenCountCache {
  private readonly conversations = new Map<string, ConversationCounts>();
  private chars = 0;

  constructor(
    private readonly maxChars = DEFAULT_MAX_CHARS,
    private readonly maxTextChars = DEFAULT_MAX_TEXT_CHARS,
  ) {}

  /** `count`, answered from the conversation's held counts where it has counted the text before. */
  counterFor(conversationId: string, count: Count): Count {
    const held = this.touch(conversationId);
    return (text) => {
      const known = held.counts.get(text);
      if (known !== undefined) return known;
      const tokens = count(text);
      if (text.length <= this.maxTextChars) this.hold(conversationId, held, text, tokens);
      return tokens;
    };
  }

  /** Drops what is held for the conversation (it was cleared). */
  forget(conversationId: string): void {
    const held = this.conversations.get(conversationId);
    if (!held) return;
    this.conversations.delete(conversationId);
    this.chars -= held.chars;
    held.counts.clear();
    held.chars = 0;
  }

  /** The conversation's counts, now the most recently used. */
  private touch(conversationId: string): ConversationCounts {
    let held = this.conversations.get(conversationId);
    if (held) this.conversations.delete(conversationId);
    else held = { counts: new Map(), chars: 0 };
    this.conversations.set(conversationId, held);
    return held;
  }

  private hold(conversationId: string, held: ConversationCounts, text: string, tokens: number) {
    // Evicted while its turn ran (the cache went over its size), or held by a turn beside this one.
    if (this.conversations.get(conversationId) !== held || held.counts.has(text)) return;
    held.counts.set(text, tokens);
    held.chars += text.length;
    this.chars += text.length;
    for (const [oldest, counts] of this.conversations) {
      if (this.chars <= this.maxChars) break;
      this.conversations.delete(oldest);
      this.chars -= counts.chars;
      counts.counts.clear();
      counts.chars = 0;
    }
  }
}
