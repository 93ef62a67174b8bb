import { Logger } from '@nestjs/common';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { AgentRunInput } from '../interfaces/agent-run.interface.js';
import { contentText } from '../../../common/messages/content-parts.js';
import type { KernelEngine } from '../../kernel/kernel-engine.js';
import { userMessage } from '../turn-message.js';
import { conversationTurnText, cutText } from './conversation-details.js';
import type { ConversationDirectory } from './conversation-directory.interface.js';

/** What the model is asked for a conversation's title. */
export const TITLE_INSTRUCTIONS =
  'Write a short title, at most six words, for the conversation below. Answer with the title only: no quotes, no final punctuation.';

/** Longest the model's title call may take. */
const TITLE_TIMEOUT_MS = 20_000;
/** Most characters of each message the model reads for a title. */
const EXCERPT = 1_000;

/** The model's answer as a title: one line, unquoted, at most 80 characters. */
export function cleanTitle(answer: string): string {
  const line = answer.split('\n').find((text) => text.trim() !== '') ?? '';
  const unquoted = line
    .trim()
    .replace(/^(title:\s*)/i, '')
    .replace(/^["'“‘*#\s]+|["'”’*.\s]+$/g, '');
  return cutText(unquoted.replace(/\s+/g, ' '), 80);
}

/**
 * Titles conversations by the model (`AgentModule`'s `titles: 'model'`): once a conversation's
 * first turn has committed, the agent's own kernel (its filters apply; no tools) is asked for a
 * short title of that exchange. The directory keeps a title only for a conversation that has none,
 * so a rename made meanwhile wins. If the model fails or answers nothing usable, the first user
 * message is the title, as without this option. Runs after the turn, never delaying it.
 */
export class ConversationTitler {
  private readonly logger = new Logger('Agent');
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly engine: () => KernelEngine,
    private readonly directory: ConversationDirectory,
  ) {}

  /** Starts titling a conversation whose first turn (`message` → `reply`) just committed. */
  titleAfterFirstTurn(
    conversationId: string,
    message: AgentRunInput['message'],
    reply: ChatMessage,
  ) {
    const work = this.title(conversationId, message, reply).finally(() =>
      this.pending.delete(work),
    );
    this.pending.add(work);
  }

  /** Waits for the titles being written (before the stores close). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async title(
    conversationId: string,
    message: AgentRunInput['message'],
    reply: ChatMessage,
  ): Promise<void> {
    const fallback = conversationTurnText(message).title;
    let title: string | undefined;
    try {
      const user = contentText(userMessage(message).content);
      const result = await this.engine().invoke(
        [
          {
            role: 'user',
            content: `User: ${user.slice(0, EXCERPT)}\nAssistant: ${contentText(reply.content).slice(0, EXCERPT)}`,
          },
        ],
        {
          tools: [],
          systemPrompts: [TITLE_INSTRUCTIONS],
          signal: AbortSignal.timeout(TITLE_TIMEOUT_MS),
        },
      );
      title = cleanTitle(contentText(result.message.content)) || undefined;
    } catch (error) {
      this.logger.warn(
        `No model title for ${conversationId} (the first message is its title): ${(error as Error).message}`,
      );
    }
    const chosen = title ?? fallback;
    if (!chosen) return;
    try {
      // A conversation deleted meanwhile stays deleted, a renamed one keeps its name (and a touch
      // sets a title only where there is none, should a rename land between the two calls).
      const listed = await this.directory.update(conversationId, {});
      if (!listed || listed.title !== undefined) return;
      await this.directory.touch(conversationId, listed.lastActiveAt, { title: chosen });
    } catch (error) {
      this.logger.warn(`Title of ${conversationId} not written: ${(error as Error).message}`);
    }
  }
}
