import { Logger } from '@nestjs/common';
import type { LongtermMemoryStore } from '../interfaces/longterm-store.interface.js';
import {
  type IndexedMessage,
  conversationEntityOf,
  conversationKeyPrefix,
  indexableText,
  messageEntityOf,
  messageKey,
} from './message-index.js';

/** What the message index writes with. */
export interface MessageIndexDeps {
  store: LongtermMemoryStore;
  /** The entity's next seq (its durable counter). */
  nextSeq(entityId: string): Promise<number>;
  /** The current model's id and a way to embed texts, when an embedder is configured. */
  embedder?: { model: string; embed(texts: string[]): Promise<number[][]> };
}

const logger = new Logger('MessageIndex');

/** Keys read per page when a conversation's messages are forgotten. */
const PAGE = 500;
/** Deletes in flight at once when a conversation's messages are forgotten. */
const PARALLEL_DELETES = 16;
/** The key of the tombstone that lifts a message index's erasure mark to its entity's. */
const ERASED_KEY = 'erased';

/**
 * Indexes a committed turn's messages for `entityId` with the run's seq and time, in one write: the
 * entry saying the entity has messages in each conversation (what a conversation delete reads), and
 * the messages, with vectors when an embedder is configured (if it fails, they are saved without and
 * the background embedding adds them). The seq guard makes a retried run's second write a no-op.
 */
export async function indexMessages(
  deps: MessageIndexDeps,
  entityId: string,
  messages: readonly IndexedMessage[],
  run: { seq: number; updatedAt: number },
): Promise<number> {
  if (messages.length === 0) return 0;
  const { store, embedder } = deps;
  const conversations = [...new Set(messages.map((message) => message.conversationId))];
  const values = messages.map((message) => ({ ...message, text: indexableText(message.text) }));
  let vectors: number[][] | undefined;
  if (embedder)
    try {
      vectors = await embedder.embed(values.map((message) => message.text));
    } catch (error) {
      logger.warn(
        `Indexing ${values.length} message(s) without vectors (the background embedding will add them): ${(error as Error).message}`,
      );
    }
  // One write: each conversation's entry first (the backends write a batch's entities in order of
  // first appearance), then the messages.
  const { applied } = await store.saveMany([
    ...conversations.map((conversationId) => ({
      entityId: conversationEntityOf(conversationId),
      key: entityId,
      value: true,
      ...run,
      // Nothing to embed: an empty vector keeps the background embedding off it.
      ...(embedder ? { embedding: { model: embedder.model, vector: [] } } : {}),
    })),
    ...values.map((message, i) => ({
      entityId: messageEntityOf(entityId),
      key: messageKey(message.conversationId, message.position),
      value: { ...message },
      ...run,
      ...(vectors && embedder ? { embedding: { model: embedder.model, vector: vectors[i]! } } : {}),
    })),
  ]);
  return applied.slice(conversations.length).filter(Boolean).length;
}

/**
 * Removes a conversation's messages from the index of every entity that took part in it, with
 * tombstones at a seq above each entity's runs so far: a retry of an earlier run cannot bring them
 * back. Resolves how many messages went.
 */
export async function forgetConversation(
  deps: MessageIndexDeps,
  conversationId: string,
): Promise<number> {
  const { store } = deps;
  const directory = conversationEntityOf(conversationId);
  let removed = 0;
  for (let after: string | undefined; ;) {
    const entries = await store.search(directory, '', PAGE, after);
    for (const { key: entityId } of entries) {
      const seq = await deps.nextSeq(entityId);
      removed += await deleteByPrefix(
        store,
        messageEntityOf(entityId),
        conversationKeyPrefix(conversationId),
        seq,
      );
      await store.delete(directory, entityId, seq);
    }
    if (entries.length < PAGE) return removed;
    after = entries.at(-1)!.key;
  }
}

/**
 * Erases the entity's message index, after its records were erased: a tombstone at a fresh seq of
 * the entity first, so the index's erasure mark is above every run the entity had begun (a run
 * still in flight cannot index its messages afterwards).
 */
export async function eraseMessageIndex(deps: MessageIndexDeps, entityId: string): Promise<void> {
  const index = messageEntityOf(entityId);
  await deps.store.delete(index, ERASED_KEY, await deps.nextSeq(entityId));
  await deps.store.deleteEntity(index);
}

async function deleteByPrefix(
  store: LongtermMemoryStore,
  entityId: string,
  prefix: string,
  seq: number,
): Promise<number> {
  let removed = 0;
  for (let after: string | undefined; ;) {
    // A message a newer run indexed (seq above this delete's) stays, and paging moves past it.
    const page = await store.search(entityId, prefix, PAGE, after);
    for (let at = 0; at < page.length; at += PARALLEL_DELETES) {
      const applied = await Promise.all(
        page.slice(at, at + PARALLEL_DELETES).map(({ key }) => store.delete(entityId, key, seq)),
      );
      removed += applied.filter((result) => result.applied).length;
    }
    if (page.length < PAGE) return removed;
    after = page.at(-1)!.key;
  }
}
