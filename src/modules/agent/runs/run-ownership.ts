import { createHash } from 'node:crypto';
import { RunBelongsToAnotherConversationError } from '../errors/agent.errors.js';
import type { RunStore } from './run-store.interface.js';

/** The run-cache key holding the conversation a run belongs to. */
const OWNER_KEY = 'conversation';

/**
 * The id of an index of runs in the run store. It starts with `#`, which no run id may hold, and
 * carries a digest of the indexed id (ids may be longer than a run id column allows).
 */
function indexId(kind: 'c' | 'e', id: string): string {
  return `#${kind}:${createHash('sha256').update(id).digest('base64url')}`;
}

/**
 * Ties each run to one conversation, and finds a conversation's or an entity's runs again. A run id
 * is the key of a run's records and cached steps, so a run id reused for another conversation must
 * be refused, or its caller would read (or resume) someone else's run; and clearing a conversation
 * or erasing an entity must leave no copy of its turns in the run cache.
 */
export class RunOwnership {
  constructor(private readonly store: RunStore) {}

  /**
   * Binds `runId` to `conversationId` (the first caller wins, atomically) and indexes it under the
   * conversation and the entity. Throws `RunBelongsToAnotherConversationError` if the run id is
   * already bound to another conversation.
   */
  async claim(runId: string, conversationId: string, entityId?: string): Promise<void> {
    const owner = await this.store.putIfAbsent(runId, OWNER_KEY, conversationId);
    if (owner !== conversationId) throw new RunBelongsToAnotherConversationError(runId);
    await this.store.addToIndex(indexId('c', conversationId), runId);
    if (entityId !== undefined) await this.store.addToIndex(indexId('e', entityId), runId);
  }

  /** The live run ids of a conversation (any order). */
  runsOf(conversationId: string): Promise<string[]> {
    return this.store.indexed(indexId('c', conversationId));
  }

  /** Removes every run of the conversation (records and cached steps), and its index. */
  forgetConversation(conversationId: string): Promise<void> {
    return this.forget(indexId('c', conversationId));
  }

  /** Removes every run made for the entity (records and cached steps), and its index. */
  forgetEntity(entityId: string): Promise<void> {
    return this.forget(indexId('e', entityId));
  }

  private async forget(index: string): Promise<void> {
    const runIds = await this.store.indexed(index);
    await this.store.deleteRuns([...runIds, index]);
  }
}
