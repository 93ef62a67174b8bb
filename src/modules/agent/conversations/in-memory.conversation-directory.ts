import { compareCodePoints } from '../../../common/canonical-json.js';
import {
  type ConversationDirectory,
  type ConversationListing,
  type ConversationPage,
  conversationNamespace,
  isAfterCursor,
} from './conversation-directory.interface.js';

/**
 * Process-local conversation directory (the memory backend), like the memory chat store it goes
 * with: not shared, not durable. A page sorts the namespace's entries (fine for a process's own
 * conversations; the durable backends read an index instead).
 */
export class InMemoryConversationDirectory implements ConversationDirectory {
  private readonly namespaces = new Map<string, Map<string, number>>();

  async touch(conversationId: string, at: number): Promise<void> {
    const namespace = conversationNamespace(conversationId);
    const entries = this.namespaces.get(namespace) ?? new Map<string, number>();
    entries.set(conversationId, Math.max(at, entries.get(conversationId) ?? at));
    this.namespaces.set(namespace, entries);
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListing[]> {
    const after = page.after;
    return [...(this.namespaces.get(namespace) ?? [])]
      .map(([conversationId, lastActiveAt]) => ({ conversationId, lastActiveAt }))
      .filter((listing) => !after || isAfterCursor(listing, after))
      .sort(
        (a, b) =>
          b.lastActiveAt - a.lastActiveAt || compareCodePoints(b.conversationId, a.conversationId),
      )
      .slice(0, page.limit);
  }

  async remove(conversationId: string): Promise<void> {
    this.namespaces.get(conversationNamespace(conversationId))?.delete(conversationId);
  }
}
