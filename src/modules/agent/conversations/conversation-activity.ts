import { Logger } from '@nestjs/common';
import type { AgentRunInput, AgentRunResult } from '../interfaces/agent-run.interface.js';
import { conversationTurnText } from './conversation-details.js';
import type { ConversationDirectory } from './conversation-directory.interface.js';
import type { TurnFormation } from '../turn-formation.js';
import type { ConversationTitler } from './conversation-titler.js';

/**
 * What the runs tell the conversation directory: a conversation is listed from its first stored
 * turn. When a turn commits, the conversation is active at that moment, its user message is the
 * preview, and the first time the default title; with model titles, its first committed turn is
 * titled by the model (formation, which the run starts itself, is waited for at shutdown). A turn that is
 * stopped, fails or is still running leaves the listing as the stored turns made it. Bookkeeping: a failed write is logged and the turn goes on.
 */
export class ConversationActivity {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly directory: ConversationDirectory,
    private readonly titler?: ConversationTitler,
    /** With `formation`: its jobs, waited for at shutdown. */
    private readonly formation?: () => TurnFormation | undefined,
  ) {}

  /**
   * A turn of the conversation committed (`result.version` its history's version after it): lists
   * the conversation as active now, and, for its first turn (the one that starts at version 0),
   * starts the model's title. Never throws.
   */
  async committed(
    conversationId: string,
    message: AgentRunInput['message'],
    result: AgentRunResult,
  ): Promise<void> {
    try {
      const { title, preview } = conversationTurnText(message);
      // With model titles, the title comes from the model once the first turn is listed.
      await this.directory.touch(conversationId, Date.now(), {
        ...(title !== undefined && !this.titler ? { title } : {}),
        ...(preview !== undefined ? { preview } : {}),
      });
    } catch (error) {
      this.logger.warn(
        `Conversation directory not updated for ${conversationId}: ${(error as Error).message}`,
      );
    }
    if (this.titler && result.version > 0 && result.version === result.messages.length)
      this.titler.titleAfterFirstTurn(conversationId, message, result.reply);
  }

  /**
   * Resolves once the titles and memories being written are (at shutdown, before the stores
   * close); no formation attempt starts afterwards.
   */
  async settled(): Promise<void> {
    await Promise.all([this.titler?.settle(), this.formation?.()?.settle()]);
  }
}
