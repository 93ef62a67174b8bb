import { AgentMemoryError } from '../../common/errors/agent-memory.error.js';

/**
 * A history change of a `ChatMemorySession` was refused, and nothing was written: its
 * operation id was already used for a different change, or the history no longer ends with the
 * items it expected to replace.
 */
export class SessionHistoryConflictError extends AgentMemoryError {
  constructor(
    /** The session (conversation) whose history was to change. */
    readonly sessionId: string,
    /** What did not match, phrased to complete "the change was refused: …". */
    readonly reason: string,
  ) {
    super(`Session "${sessionId}": the change was refused: ${reason}; nothing was written`);
  }
}
