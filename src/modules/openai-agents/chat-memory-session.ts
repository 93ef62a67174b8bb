import type {
  AgentInputItem,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
} from '@openai/agents';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import { assertConversationId, assertInteger } from '../../common/messages/message-validation.js';
import { ConversationVersionConflictError } from '../chat-memory/errors/conversation-version-conflict.error.js';
import type { ChatMemoryStore } from '../chat-memory/interfaces/chat-memory-store.interface.js';
import { applyMutations, transactionPlan } from './history-changes.js';
import {
  type EditRecord,
  type LiveItem,
  LogFold,
  decodeItem,
  editMessage,
  itemMessage,
} from './session-log.js';

/** Options of {@link ChatMemorySession}. */
export interface ChatMemorySessionOptions {
  /** Where the session lives: any backend of `ChatMemoryModule` (or your own store). */
  store: ChatMemoryStore;
  /** The conversation id the session reads and writes (default: a new UUID). */
  sessionId?: string;
  /**
   * How many times an edit (`popItem`, a history transaction or rewrite, a compaction) is tried
   * when other writers change the conversation between its read and its write (default 50).
   */
  maxAttempts?: number;
}

/** The log as one read saw it: its version, and its live items folded from the newest back. */
interface LogSnapshot {
  version: number;
  fold: LogFold;
}

/** What an edit writes (nothing when `messages` is empty), and what it then returns. */
interface EditPlan<T> {
  messages: ChatMessage[];
  result: T;
}

/**
 * The OpenAI Agents SDK's `Session` over a `ChatMemoryStore`: `run(agent, input, { session })`
 * keeps the conversation in any backend of the library, where its own agent, inspector and HTTP API
 * read it too.
 *
 * Each item is one message: the library's reading of it (text, tool call, tool result, reasoning)
 * with the exact item in its metadata, so `getItems` gives back what `addItems` was given. The
 * store is append-only, so the conversation is a log: `popItem`, `applyHistoryMutations`,
 * `applyHistoryTransaction` and `replaceHistoryWithCompaction` append a marker message naming the
 * items they remove or replace, written with the version they read (`expectedVersion`) and tried
 * again when another writer got there first — two concurrent `popItem` calls pop two different
 * items. `getItems` folds the markers out; `liveSessionMessages` does the same for the library's
 * reading. `clearSession` clears the conversation.
 */
export class ChatMemorySession
  implements SessionHistoryRewriteAwareSession, SessionHistoryTransactionAwareSession
{
  private readonly store: ChatMemoryStore;
  private readonly sessionId: string;
  private readonly maxAttempts: number;

  constructor(options: ChatMemorySessionOptions) {
    if (typeof options?.store?.add !== 'function')
      throw new InvalidArgumentError('store', 'must be a ChatMemoryStore');
    const { store, sessionId = randomUUID(), maxAttempts = 50 } = options;
    assertConversationId(sessionId, 'sessionId');
    assertInteger(maxAttempts, 'maxAttempts', 1);
    this.store = store;
    this.sessionId = sessionId;
    this.maxAttempts = maxAttempts;
  }

  /** The conversation id. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /**
   * The session's items, oldest first; with `limit`, the newest `limit` of them (none for a limit
   * of 0 or less). A limit reads the log back page by page, not the whole conversation.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && (typeof limit !== 'number' || Number.isNaN(limit)))
      throw new InvalidArgumentError('limit', `must be a number, got ${String(limit)}`);
    if (limit !== undefined && limit <= 0) return [];
    const { fold } = limit === undefined ? await this.readAll() : await this.readNewest(limit);
    return fold
      .oldestFirst()
      .slice(-(limit ?? Infinity))
      .map(decodeItem);
  }

  /** Appends the items, in order, in one atomic write. */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) throw new InvalidArgumentError('items', 'must be an array');
    if (items.length === 0) return;
    const messages = items.map((item, index) => itemMessage(item, randomUUID(), `items[${index}]`));
    await this.store.add(this.sessionId, messages);
  }

  /**
   * Removes the newest item and returns it (`undefined` when there is none). Safe under
   * concurrency: the removal is written only if the conversation is still at the version it read.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    return this.edit(
      () => this.readNewest(1),
      ({ fold }): EditPlan<AgentInputItem | undefined> => {
        const newest = fold.newestFirst[0];
        if (!newest) return { messages: [], result: undefined };
        return {
          messages: [editMessage({ remove: [newest.key] }, randomUUID())],
          result: decodeItem(newest),
        };
      },
    );
  }

  /** Removes the conversation: every item, marker and applied transaction. */
  async clearSession(): Promise<void> {
    await this.store.clear(this.sessionId);
  }

  /**
   * Rewrites stored items in place (`replace_function_call`: the first `function_call` with the
   * call id becomes the replacement, later ones are removed), as one marker.
   */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const mutations = args?.mutations;
    if (!Array.isArray(mutations)) throw new InvalidArgumentError('mutations', 'must be an array');
    if (mutations.length === 0) return;
    await this.edit(
      () => this.readAll(),
      ({ fold }) => ({
        messages: this.markerOf(applyMutations(fold.oldestFirst(), mutations)),
        result: undefined,
      }),
    );
  }

  /**
   * Applies a history transaction atomically and once: its marker records the operation id with a
   * digest of the transaction, in the same write as its items. The same id again with the same
   * transaction does nothing; with another, or a `replace_suffix` whose expected suffix is not the
   * history's end, it throws `SessionHistoryConflictError` and writes nothing.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    await this.edit(
      () => this.readAll(),
      ({ fold }) => ({
        messages: transactionPlan(this.sessionId, fold, args).flatMap((entry) =>
          'item' in entry
            ? [itemMessage(entry.item, randomUUID())]
            : this.markerOf(entry.edit, true),
        ),
        result: undefined,
      }),
    );
  }

  /**
   * Replaces the whole history with `items` (a compaction item and the suffix it keeps) in one
   * write: a marker removing every live item, then the items.
   */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) throw new InvalidArgumentError('items', 'must be an array');
    await this.edit(
      () => this.readAll(),
      ({ fold }) => ({
        messages: [
          ...this.markerOf({ remove: fold.oldestFirst().map((live: LiveItem) => live.key) }),
          ...items.map((item) => itemMessage(item, randomUUID())),
        ],
        result: undefined,
      }),
    );
  }

  /** The marker of an edit; none for an edit that changes nothing (unless it must be recorded). */
  private markerOf(edit: EditRecord, record = false): ChatMessage[] {
    const empty = !edit.remove?.length && !edit.replace?.length;
    return empty && !record ? [] : [editMessage(edit, randomUUID())];
  }

  /**
   * Reads, plans and writes with the version read, again from the read when another writer
   * changed the conversation in between; gives up with the conflict after `maxAttempts`.
   */
  private async edit<T>(
    read: () => Promise<LogSnapshot>,
    plan: (snapshot: LogSnapshot) => EditPlan<T>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const snapshot = await read();
      const { messages, result } = plan(snapshot);
      if (messages.length === 0) return result;
      try {
        await this.store.add(this.sessionId, messages, { expectedVersion: snapshot.version });
        return result;
      } catch (error) {
        if (!(error instanceof ConversationVersionConflictError) || attempt >= this.maxAttempts)
          throw error;
        await sleep(Math.random() * Math.min(50, 2 ** attempt));
      }
    }
  }

  /** The whole log, folded. */
  private async readAll(): Promise<LogSnapshot> {
    const messages = await this.store.get(this.sessionId);
    const fold = new LogFold();
    for (let index = messages.length - 1; index >= 0; index -= 1) fold.add(messages[index]!);
    return { version: messages.length, fold };
  }

  /** The log read back from its end, in growing pages, until `count` live items are found. */
  private async readNewest(count: number): Promise<LogSnapshot> {
    const version = await this.store.version(this.sessionId);
    const fold = new LogFold();
    let end = version;
    let page = Math.max(16, Math.min(count, 1000) * 2);
    while (end > 0 && fold.newestFirst.length < count) {
      const start = Math.max(0, end - page);
      const messages = await this.store.range(this.sessionId, start, end - start);
      for (let index = messages.length - 1; index >= 0; index -= 1) fold.add(messages[index]!);
      end = start;
      page = Math.min(page * 2, 4096);
    }
    return { version, fold };
  }
}
