import { contentText } from '../../../common/messages/content-parts.js';
import { Logger } from '@nestjs/common';
import type { ChatMemoryStore } from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { LlmAdapter } from '../../llm/interfaces/llm.interface.js';
import { safeWindow } from '../window/safe-window.js';
import { assertWindow } from './default.memory-provider.js';
import { StoreBackedMemoryProvider } from './store-backed.memory-provider.js';

/** Options of {@link SummarizingMemoryProvider}. */
export interface SummarizingOptions {
  /** The safe window kept verbatim (a positive integer). */
  window: number;
  /** The model that writes summaries. */
  llm: LlmAdapter;
  /** Instructions for the summarizer (default: a concise, factual summary). */
  instructions?: string;
  /** Conversations whose summary is kept in memory (default 1,000; least recently used go first). */
  cacheSize?: number;
}

interface CachedSummary {
  /** The id of the newest message the summary covers. */
  lastFoldedId: string;
  summary: string;
}

const DEFAULT_INSTRUCTIONS =
  'Summarize the conversation below for the assistant that continues it. Keep facts, names, numbers, ' +
  'decisions, open questions and what tools returned. Be concise. Answer with the summary only.';

/** The prefix of the summary message placed after the system messages. */
export const SUMMARY_PREFIX = 'Summary of the earlier conversation: ';

/**
 * Sends the safe window verbatim and folds everything that fell out of it into one summary system
 * message. Summaries are cached by conversation and the id of the newest folded message, and grow
 * incrementally: when more falls out, only the new messages are folded into the previous summary.
 * A call and its results are folded together (orphaned results leave the window with their call).
 * If the model fails, the plain window is sent and the failure is logged.
 */
export class SummarizingMemoryProvider extends StoreBackedMemoryProvider {
  private readonly logger = new Logger(SummarizingMemoryProvider.name);
  private readonly cache = new Map<string, CachedSummary>();

  constructor(
    store: ChatMemoryStore,
    private readonly options: SummarizingOptions,
  ) {
    super(store);
    assertWindow(options?.window);
  }

  async prepare(conversationId: string, messages: ChatMessage[]): Promise<ChatMessage[]> {
    const { output, dropped } = safeWindow(messages, this.options.window);
    if (dropped.length === 0) return output;
    let summary: string;
    try {
      summary = await this.summaryOf(conversationId, dropped);
    } catch (error) {
      this.logger.warn(
        `Summarizing ${conversationId} failed; sending the plain window: ${String(error)}`,
      );
      return output;
    }
    const systemCount = output.filter((message) => message.role === 'system').length;
    return [
      ...output.slice(0, systemCount),
      { role: 'system', content: `${SUMMARY_PREFIX}${summary}` },
      ...output.slice(systemCount),
    ];
  }

  private async summaryOf(conversationId: string, dropped: ChatMessage[]): Promise<string> {
    const lastFoldedId = identify(dropped.at(-1)!, dropped.length);
    const cached = this.cache.get(conversationId);
    if (cached?.lastFoldedId === lastFoldedId) return this.touch(conversationId, cached).summary;
    const resumeAt = cached
      ? dropped.findIndex((message, i) => identify(message, i + 1) === cached.lastFoldedId)
      : -1;
    const fresh = resumeAt >= 0 ? dropped.slice(resumeAt + 1) : dropped;
    const previous = resumeAt >= 0 ? cached!.summary : undefined;
    const summary = await this.summarize(previous, fresh);
    this.touch(conversationId, { lastFoldedId, summary });
    return summary;
  }

  private async summarize(previous: string | undefined, messages: ChatMessage[]): Promise<string> {
    const transcript = messages.map(renderLine).join('\n');
    const request = previous
      ? `Summary so far:\n${previous}\n\nNew messages:\n${transcript}`
      : transcript;
    const { message } = await this.options.llm.chat({
      messages: [
        { role: 'system', content: this.options.instructions ?? DEFAULT_INSTRUCTIONS },
        { role: 'user', content: request },
      ],
    });
    const summary = contentText(message.content).trim();
    if (!summary) throw new Error('the summarizer returned no text');
    return summary;
  }

  private touch(conversationId: string, entry: CachedSummary): CachedSummary {
    this.cache.delete(conversationId);
    this.cache.set(conversationId, entry);
    const limit = this.options.cacheSize ?? 1_000;
    while (this.cache.size > limit) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}

/** A message's id, or (for a message not stored yet) its position among the folded ones. */
function identify(message: ChatMessage, position: number): string {
  return message.id ?? `#${position}`;
}

function renderLine(message: ChatMessage): string {
  const calls = message.toolCalls?.map((call) => `${call.name}(${call.arguments})`).join(', ');
  const text = describeContent(message.content);
  if (message.role === 'tool') return `tool ${message.name ?? message.toolCallId}: ${text}`;
  return `${message.role}: ${text}${calls ? `${text ? ' ' : ''}[calls ${calls}]` : ''}`;
}

/** A message's content as summary text: its text, with images and files named in brackets. */
function describeContent(content: ChatMessage['content']): string {
  if (typeof content === 'string' || content === null) return content ?? '';
  return content
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'reasoning'
          ? ''
          : `[${part.type}${part.type === 'file' && part.filename ? ` ${part.filename}` : ''}]`,
    )
    .filter(Boolean)
    .join(' ');
}
