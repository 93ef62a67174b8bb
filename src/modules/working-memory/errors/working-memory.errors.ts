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

/**
 * A write would take a tenant (the owner of the conversation, see the module's `quota`) over its
 * working-memory quota; nothing was changed. The HTTP edge maps it to 507.
 */
export class WorkingMemoryQuotaError extends AgentMemoryError {
  constructor(
    readonly owner: string,
    /** What the quota limits: `bytes` or `conversations`. */
    readonly limit: 'bytes' | 'conversations',
    readonly max: number,
  ) {
    super(
      limit === 'bytes'
        ? `Working memory of ${owner === '' ? 'the default tenant' : `tenant ${owner}`} would exceed its quota of ${max} bytes; nothing was changed`
        : `Working memory of ${owner === '' ? 'the default tenant' : `tenant ${owner}`} would exceed its quota of ${max} conversations; nothing was changed`,
    );
  }
}

/**
 * The process holds as much working memory as the memory backend's `capacity` allows and no memory
 * has been idle long enough to be reclaimed; nothing was changed. The HTTP edge maps it to 507.
 */
export class WorkingMemoryFullError extends AgentMemoryError {
  constructor(readonly key: string) {
    super(
      `Working memory of this process is full (see the memory backend's capacity); "${key}" was not written`,
    );
  }
}
