import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/**
 * An `add` with `expectedVersion` found a different number of stored messages, so it wrote
 * nothing. The HTTP edge maps it to 409.
 */
export class ConversationVersionConflictError extends AgentMemoryError {
  constructor(
    readonly conversationId: string,
    /** The version the caller expected. */
    readonly expectedVersion: number,
    /** The version actually stored. */
    readonly actualVersion: number,
  ) {
    super(
      `Conversation "${conversationId}" is at version ${actualVersion}, ` +
        `but version ${expectedVersion} was expected; nothing was written`,
    );
  }
}
