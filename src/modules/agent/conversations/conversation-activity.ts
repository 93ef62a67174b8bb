import { Logger } from '@nestjs/common';
import type { AgentRunInput, AgentRunResult } from '../interfaces/agent-run.interface.js';
import { conversationTurnText } from './conversation-details.js';
import type { ConversationDirectory } from './conversation-directory.interface.js';
import type { ConversationTitler } from './conversation-titler.js';

/**
 * What the runs tell the conversation directory: a conversation is active when a run of it is
 * queued or starts an attempt (its user message the preview, and the default title the first
 * time); with model titles, its first committed turn is titled by the model. Bookkeeping: a failed
 * write is logged and the turn goes on.
 */
export class ConversationActivity {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly directory: ConversationDirectory,
    private readonly titler?: ConversationTitler,
  ) {}

  /** A run of the conversation was queued or starts an attempt now. */
  async touch(conversationId: string, message: AgentRunInput['message']): Promise<void> {
    try {
      const { title, preview } = conversationTurnText(message);
      // With model titles, the title waits for the first turn's commit.
      await this.directory.touch(conversationId, Date.now(), {
        ...(title !== undefined && !this.titler ? { title } : {}),
        ...(preview !== undefined ? { preview } : {}),
      });
    } catch (error) {
      this.logger.warn(
        `Conversation directory not updated for ${conversationId}: ${(error as Error).message}`,
      );
    }
  }

  /** A turn committed; the conversation's first (it starts at version 0) gets the model's title. */
  committed(conversationId: string, message: AgentRunInput['message'], result: AgentRunResult) {
    if (this.titler && result.version > 0 && result.version === result.messages.length)
      this.titler.titleAfterFirstTurn(conversationId, message, result.reply);
  }

  /** Resolves once the titles being written are (at shutdown, before the stores close). */
  async settled(): Promise<void> {
    await this.titler?.settle();
  }
}
