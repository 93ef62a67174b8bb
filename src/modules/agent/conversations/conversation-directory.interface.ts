import { compareCodePoints } from '../../../common/canonical-json.js';

/** A conversation as the directory lists it. */
export interface ConversationListing {
  conversationId: string;
  /** When a run of the conversation was last queued or began an attempt (epoch ms). */
  lastActiveAt: number;
}

/** A page request of {@link ConversationDirectory.list}: newest first. */
export interface ConversationPage {
  /** 1–100. */
  limit: number;
  /** The last listing of the previous page: the page starts after it. */
  after?: ConversationListing;
}

/**
 * The agent's directory of conversations, newest activity first, grouped by namespace: the part of
 * the conversation id before its last `/` (`''` when there is none). The HTTP module stores a
 * tenant's conversations as `tenant/id`, so a namespace is a tenant there. Entries do not expire;
 * clearing a conversation through the agent removes its entry.
 */
export interface ConversationDirectory {
  /** Records activity of a conversation at `at` (an entry's time only moves forward). */
  touch(conversationId: string, at: number): Promise<void>;
  /** A page of the namespace's conversations, by `lastActiveAt` then id, both descending. */
  list(namespace: string, page: ConversationPage): Promise<ConversationListing[]>;
  /** Removes the conversation's entry. */
  remove(conversationId: string): Promise<void>;
}

/** The namespace of a conversation id: what comes before its last `/`, or `''`. */
export function conversationNamespace(conversationId: string): string {
  const slash = conversationId.lastIndexOf('/');
  return slash < 0 ? '' : conversationId.slice(0, slash);
}

/** Whether `listing` sorts after `cursor` in a directory page (older, or as old with a lower id in code-point order). */
export function isAfterCursor(listing: ConversationListing, cursor: ConversationListing): boolean {
  return (
    listing.lastActiveAt < cursor.lastActiveAt ||
    (listing.lastActiveAt === cursor.lastActiveAt &&
      compareCodePoints(listing.conversationId, cursor.conversationId) < 0)
  );
}
