import { compareCodePoints } from '../../../common/canonical-json.js';
import type { ConversationTurnText } from './conversation-details.js';

/** Where a conversation sits in a directory page: its time, then its id. */
export interface ConversationPosition {
  conversationId: string;
  /** When a turn of the conversation was last stored (its commit; epoch ms). */
  lastActiveAt: number;
}

/** A conversation as the directory lists it. */
export interface ConversationListing extends ConversationPosition {
  /**
   * Its title: the one set through `update`, else the text of its first user message (single-lined,
   * cut to 80 characters at a word, with `…`). Absent when it has none (or it was cleared).
   */
  title?: string;
  /** The newest user message: its text single-lined and cut to 120 characters (`[image]`, `[file]` without text). */
  preview?: string;
  /** Its metadata: at most 16 string values by key. Absent when it has none. */
  metadata?: Record<string, string>;
}

/** A page request of `ConversationDirectory.list`: newest first. */
export interface ConversationPage {
  /** 1–100. */
  limit: number;
  /** The `next` of the previous page (or its last listing): the page starts after it. */
  after?: ConversationPosition;
  /** Only conversations whose metadata holds every one of these pairs (1–5 of them). */
  metadata?: Record<string, string>;
}

/** A page of `ConversationDirectory.list`. */
export interface ConversationListPage {
  /** Newest activity first; fewer than `limit` (even none) when a filtered scan stopped early. */
  conversations: ConversationListing[];
  /**
   * Pass as `after` for the next page; absent when the list has ended. With a metadata filter,
   * a page reads at most 1,000 entries of the namespace (on every backend): when that
   * is reached first, the page holds what matched so far and `next` is the last entry read (which
   * may not match), so paging goes on from there.
   */
  next?: ConversationPosition;
}

/** A change of a conversation's title and metadata. */
export interface ConversationPatch {
  /** A title (1–200 characters after trimming), or `null` to clear it; absent leaves it as is. */
  title?: string | null;
  /** Keys to set (a string of at most 512 characters) or delete (`null`); other keys stay. */
  metadata?: Record<string, string | null>;
}

/**
 * The agent's directory of conversations, newest activity first, grouped by namespace: the part of
 * the conversation id before its last `/` (`''` when there is none). The HTTP module stores a
 * tenant's conversations as `tenant/id`, so a namespace is a tenant there. Entries do not expire;
 * clearing a conversation through the agent removes its entry.
 */
export interface ConversationDirectory {
  /**
   * Records activity of a conversation at `at` (an entry's time only moves forward). `turn` is what
   * the turn's user message gives: its preview replaces the entry's when `at` is not older than the
   * entry's time; its title is kept only by a conversation that never had one.
   */
  touch(conversationId: string, at: number, turn?: ConversationTurnText): Promise<void>;
  /**
   * A page of the namespace's conversations, by `lastActiveAt` then id, both descending, filtered
   * by metadata when the page asks (exact values, all pairs).
   */
  list(namespace: string, page: ConversationPage): Promise<ConversationListPage>;
  /**
   * Changes a listed conversation's title and metadata (checked by `checkConversationPatch`; at most
   * 16 keys after the merge, else `InvalidArgumentError`); resolves its listing, or `undefined` when
   * the directory does not list it (nothing is written then).
   */
  update(
    conversationId: string,
    patch: ConversationPatch,
  ): Promise<ConversationListing | undefined>;
  /** Removes the conversation's entry: its time, title, preview and metadata. */
  remove(conversationId: string): Promise<void>;
}

/** The namespace of a conversation id: what comes before its last `/`, or `''`. */
export function conversationNamespace(conversationId: string): string {
  const slash = conversationId.lastIndexOf('/');
  return slash < 0 ? '' : conversationId.slice(0, slash);
}

/** Whether `listing` sorts after `cursor` in a directory page (older, or as old with a lower id in code-point order). */
export function isAfterCursor(
  listing: ConversationPosition,
  cursor: ConversationPosition,
): boolean {
  return (
    listing.lastActiveAt < cursor.lastActiveAt ||
    (listing.lastActiveAt === cursor.lastActiveAt &&
      compareCodePoints(listing.conversationId, cursor.conversationId) < 0)
  );
}

/** The position of a listing (what a page's `next` holds). */
export function positionOf(listing: ConversationPosition): ConversationPosition {
  return { conversationId: listing.conversationId, lastActiveAt: listing.lastActiveAt };
}

/** How many entries a filtered page of the Redis and memory directories reads at most. */
export const FILTER_SCAN_BUDGET = 1_000;
