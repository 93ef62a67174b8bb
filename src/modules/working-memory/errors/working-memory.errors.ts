import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/** A write would take the conversation's working memory over its hard cap, even after compaction. */
export class WorkingMemoryOverflowError extends AgentMemoryError {
  constructor(
    readonly key: string,
    /** The memory's size had the write been applied, in bytes. */
    readonly attemptedBytes: number,
    readonly capBytes: number,
  ) {
    super(
      `Writing "${key}" would take working memory to ${attemptedBytes} bytes, over its cap of ${capBytes}; nothing was changed`,
    );
  }
}

/** Another writer changed the memory between a read and a conditional write, too many times in a row. */
export class WorkingMemoryContentionError extends AgentMemoryError {
  constructor(readonly key: string) {
    super(`Writing "${key}" kept conflicting with other writers of the same working memory`);
  }
}
