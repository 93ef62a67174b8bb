import { Logger } from '@nestjs/common';
import type {
  LongtermMemoryStore,
  LongtermSaveInput,
} from '../interfaces/longterm-store.interface.js';
import {
  type IndexedMessage,
  conversationEntityOf,
  conversationKeyPrefix,
  indexableText,
  indexedMessageOf,
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

/**
 * A bookkeeping record of the index (a conversation's directory entry, a fence): no text, and, with
 * an embedder, an empty vector, which keeps the background embedding off it.
 */
function marker(
  deps: MessageIndexDeps,
  entityId: string,
  key: string,
  run: { seq: number; updatedAt?: number },
): LongtermSaveInput {
  return {
    entityId,
    key,
    value: true,
    seq: run.seq,
    ...(run.updatedAt === undefined ? {} : { updatedAt: run.updatedAt }),
    ...(deps.embedder ? { embedding: { model: deps.embedder.model, vector: [] } } : {}),
  };
}

/** Keys read per page when a conversation's messages are forgotten. */
const PAGE = 500;
/** Most steps an erasure takes through an index's conversations (one read each). */
const MAX_ERASE_PAGES = 100_000;
/** Deletes in flight at once when a conversation's messages are forgotten. */
const PARALLEL_DELETES = 16;
/** The key of the tombstone that lifts a message index's erasure mark to its entity's. */
const ERASED_KEY = 'erased';
/**
 * The key of a conversation's fence in an entity's message index: the seq its last forget took.
 * Message keys start with a digit (their conversation's length), so no message key has this form.
 */
const fenceKey = (conversationId: string) => `forgotten/${conversationKeyPrefix(conversationId)}`;
/** The largest key of a conversation's messages, to page past them. */
const pastConversation = (conversationId: string) =>
  `${conversationKeyPrefix(conversationId)}\u{10FFFF}`;

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
    ...conversations.map((conversationId) =>
      marker(deps, conversationEntityOf(conversationId), entityId, run),
    ),
    ...values.map((message, i) => ({
      entityId: messageEntityOf(entityId),
      key: messageKey(message.conversationId, message.position),
      value: { ...message },
      seq: run.seq,
      updatedAt: run.updatedAt,
      ...(vectors && embedder ? { embedding: { model: embedder.model, vector: vectors[i]! } } : {}),
    })),
  ]);
  const written = applied.slice(conversations.length);
  // A forget that read this entity's messages before this write fenced the conversation at a seq
  // above this run's first: what this run wrote after it is removed here.
  const fenced = await fencedConversations(store, entityId, conversations, run.seq);
  for (const [conversationId, fence] of fenced)
    await Promise.all(
      values.flatMap((message, i) =>
        message.conversationId === conversationId && written[i]
          ? [
              store
                .delete(
                  messageEntityOf(entityId),
                  messageKey(conversationId, message.position),
                  fence,
                )
                .then(() => (written[i] = false)),
            ]
          : [],
      ),
    );
  return written.filter(Boolean).length;
}

/**
 * Records that `entityId` may index messages of the conversation (its entry in the conversation's
 * directory), before a run's model call: a conversation deleted while the run is in flight then
 * fences this entity too.
 */
export async function noteConversation(
  deps: MessageIndexDeps,
  entityId: string,
  conversationId: string,
  run: { seq: number; updatedAt: number },
): Promise<void> {
  await deps.store.save(marker(deps, conversationEntityOf(conversationId), entityId, run));
}

/** The conversations fenced at a seq above `seq` in the entity's index, with that seq. */
async function fencedConversations(
  store: LongtermMemoryStore,
  entityId: string,
  conversations: readonly string[],
  seq: number,
): Promise<Array<[string, number]>> {
  const fences = await Promise.all(
    conversations.map((conversationId) =>
      store.load(messageEntityOf(entityId), fenceKey(conversationId)),
    ),
  );
  return fences.flatMap((fence, i) =>
    fence && fence.seq > seq ? [[conversations[i]!, fence.seq] as [string, number]] : [],
  );
}

/**
 * Removes a conversation's messages from the index of every entity that took part in it. For each,
 * at a fresh seq of the entity (above every run it had begun): a fence first, then tombstones on
 * the messages, then its directory entry goes. A retry of an earlier run cannot bring them back,
 * and a run in flight that indexes afterwards finds the fence and removes what it wrote. Resolves
 * how many messages went.
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
      const index = messageEntityOf(entityId);
      await store.save(marker(deps, index, fenceKey(conversationId), { seq }));
      removed += await deleteByPrefix(store, index, conversationKeyPrefix(conversationId), seq);
      await store.delete(directory, entityId, seq);
    }
    if (entries.length < PAGE) return removed;
    after = entries.at(-1)!.key;
  }
}

/**
 * Erases the entity's message index, given a fresh seq of the entity taken before its records were
 * erased (above every run it had begun): its entries in the directories of the conversations it
 * has messages in go (tombstones at that seq), then the index, whose erasure mark a tombstone at
 * that seq lifts above those runs — one in flight cannot index its messages afterwards.
 */
export async function eraseMessageIndex(
  deps: MessageIndexDeps,
  entityId: string,
  seq: number,
): Promise<void> {
  const { store } = deps;
  const index = messageEntityOf(entityId);
  for (let after: string | undefined, pages = 0; pages < MAX_ERASE_PAGES; pages += 1) {
    const [first] = await store.search(index, '', 1, after);
    if (!first) break;
    const message = indexedMessageOf(first.value);
    if (message) {
      await store.delete(conversationEntityOf(message.conversationId), entityId, seq);
      after = pastConversation(message.conversationId);
    } else after = first.key;
  }
  await store.delete(index, ERASED_KEY, seq);
  await store.deleteEntity(index);
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
