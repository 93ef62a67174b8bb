import { createHash } from 'node:crypto';
import { RunBelongsToAnotherConversationError } from '../errors/agent.errors.js';
import { newestFirst, pastCursor } from './ordered-index.js';
import { CLAIMED_AT_KEY, STATUS_KEY } from './run-entry-keys.js';
import type { OrderedIndexEntry, RunStore } from './run-store.interface.js';
import type { RunSnapshot } from './run-snapshot.js';

/** The run-cache key holding the conversation a run belongs to. */
const OWNER_KEY = 'conversation';

/** Entries of an ordered index read per round when every run of it goes. */
const FORGET_PAGE = 1_000;

/**
 * The id of an index of runs in the run store. It starts with `#`, which no run id may hold, and
 * carries a digest of the indexed id (ids may be longer than a run id column allows). Kinds: `o`
 * a conversation's runs by creation time; `c` the same, unordered, as versions before the ordered
 * index wrote it (read until its entries expire with the retention); `e` an entity's runs.
 */
function indexId(kind: 'o' | 'c' | 'e', id: string): string {
  return `#${kind}:${createHash('sha256').update(id).digest('base64url')}`;
}

/**
 * Ties each run to one conversation, and finds a conversation's or an entity's runs again. A run id
 * is the key of a run's records and cached steps, so a run id reused for another conversation must
 * be refused, or its caller would read (or resume) someone else's run; and clearing a conversation
 * or erasing an entity must leave no copy of its turns in the run cache.
 */
export class RunOwnership {
  constructor(
    private readonly store: RunStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Binds `runId` to `conversationId` (the first caller wins, atomically) and indexes it under the
   * conversation (at the time of the first claim) and the entity, in one store call (one commit on
   * PostgreSQL and SQLite). Throws `RunBelongsToAnotherConversationError` if the run id is already
   * bound to another conversation. With `initial`, a first claim that finds no record stores the
   * record `initial` builds from the claim time, in the same commit (`firstAttempt` in the answer).
   * Resolves what the claim read or wrote of the run's record, for the writes that follow.
   */
  async claim(
    runId: string,
    conversationId: string,
    entityId?: string,
    initial?: (claimedAt: number) => string,
  ): Promise<RunSnapshot> {
    const at = this.now();
    const record = initial?.(at);
    const claimed = await this.store.claim({
      runId,
      ownerKey: OWNER_KEY,
      owner: conversationId,
      readKey: STATUS_KEY,
      atKey: CLAIMED_AT_KEY,
      at,
      // A run recorded by a version before the ordered index keeps its place: its record's time.
      atOfRead: 'createdAt',
      orderedIndex: indexId('o', conversationId),
      indexes: entityId === undefined ? [] : [indexId('e', entityId)],
      ...(record === undefined ? {} : { initial: record }),
    });
    if (!claimed.bound) throw new RunBelongsToAnotherConversationError(runId);
    if (claimed.initial) return { json: record, claimedAt: claimed.at, firstAttempt: true };
    return { json: claimed.read ?? null, claimedAt: claimed.at };
  }

  /**
   * A page of a conversation's runs, newest first, strictly after `before`: read through the ordered
   * index (`limit` rows, whatever the number of runs), merged with the runs that versions before the
   * ordered index made (read from their unordered index, which empties as they expire with the
   * retention; during a rolling upgrade older instances still add to it).
   */
  async page(
    conversationId: string,
    limit: number,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]> {
    const [page, legacy] = await Promise.all([
      this.store.orderedPage(indexId('o', conversationId), limit, before),
      this.legacyRuns(conversationId, before),
    ]);
    return legacy.length === 0 ? page : [...page, ...legacy].sort(newestFirst).slice(0, limit);
  }

  /** Removes every run of the conversation (records and cached steps), and its indexes. */
  async forgetConversation(conversationId: string): Promise<void> {
    const ordered = indexId('o', conversationId);
    let before: OrderedIndexEntry | undefined;
    // A page at a time, each after the last: bounded by the runs the index holds.
    for (;;) {
      const page = await this.store.orderedPage(ordered, FORGET_PAGE, before);
      await this.store.deleteRuns(page.map((entry) => entry.runId));
      if (page.length < FORGET_PAGE) break;
      before = page.at(-1);
    }
    await this.forget(indexId('c', conversationId));
    await this.store.deleteRuns([ordered]);
  }

  /** Removes every run made for the entity (records and cached steps), and its index. */
  forgetEntity(entityId: string): Promise<void> {
    return this.forget(indexId('e', entityId));
  }

  private async forget(index: string): Promise<void> {
    const runIds = await this.store.indexed(index);
    await this.store.deleteRuns([...runIds, index]);
  }

  /** Runs claimed by a version before the ordered index (never claimed since), newest first. */
  private async legacyRuns(
    conversationId: string,
    before?: OrderedIndexEntry,
  ): Promise<OrderedIndexEntry[]> {
    const runIds = await this.store.indexed(indexId('c', conversationId));
    const entries = await Promise.all(
      runIds.map(async (runId) => {
        const [claimedAt, record] = await Promise.all([
          this.store.get(runId, CLAIMED_AT_KEY),
          this.store.get(runId, STATUS_KEY),
        ]);
        if (claimedAt !== undefined || record === undefined) return undefined;
        return { runId, at: (JSON.parse(record) as { createdAt: number }).createdAt };
      }),
    );
    return entries
      .filter((entry): entry is OrderedIndexEntry => entry !== undefined)
      .filter((entry) => pastCursor(entry, before))
      .sort(newestFirst);
  }
}
