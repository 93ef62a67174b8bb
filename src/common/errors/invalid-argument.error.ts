import { AgentMemoryError } from './agent-memory.error.js';

/**
 * An argument failed validation. Thrown before any I/O, so nothing was written.
 * The HTTP edge maps it to 400.
 */
export class InvalidArgumentError extends AgentMemoryError {
  constructor(
    /** The argument at fault, e.g. `conversationId` or `messages[2].role`. */
    readonly argument: string,
    /** What is wrong with it, phrased to complete "`argument` …". */
    readonly problem: string,
  ) {
    super(`Invalid ${argument}: ${problem}`);
  }
}
