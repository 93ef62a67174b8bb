import { compareCodePoints } from '../../../common/canonical-json.js';
import {
  type ConversationTurnText,
  checkConversationPatch,
  matchesMetadata,
  mergeMetadata,
} from './conversation-details.js';
import {
  type ConversationDirectory,
  type ConversationListPage,
  type ConversationListing,
  type ConversationPage,
  type ConversationPatch,
  FILTER_SCAN_BUDGET,
  conversationNamespace,
  isAfterCursor,
  positionOf,
} from './conversation-directory.interface.js';

/** An entry: its time, its title (`''` once cleared), preview and metadata. */
interface Entry {
  lastActiveAt: number;
  title?: string;
  preview?: string;
  metadata: Record<string, string>;
}

/**
 * Process-local conversation directory (the memory backend), like the memory chat store it goes
 * with: not shared, not durable. A page sorts the namespace's entries (fine for a process's own
 * conversations; the durable backends read an index instead); a filtered page reads at most
 * {@link FILTER_SCAN_BUDGET} entries, as on Redis.
 */
export class InMemoryConversationDirectory implements ConversationDirectory {
  private readonly namespaces = new Map<string, Map<string, Entry>>();

  async touch(conversationId: string, at: number, turn: ConversationTurnText = {}): Promise<void> {
    const namespace = conversationNamespace(conversationId);
    const entries = this.namespaces.get(namespace) ?? new Map<string, Entry>();
    const entry = entries.get(conversationId) ?? { lastActiveAt: at, metadata: {} };
    if (at >= entry.lastActiveAt && turn.preview !== undefined) entry.preview = turn.preview;
    entry.lastActiveAt = Math.max(at, entry.lastActiveAt);
    entry.title ??= turn.title;
    entries.set(conversationId, entry);
    this.namespaces.set(namespace, entries);
  }

  async list(namespace: string, page: ConversationPage): Promise<ConversationListPage> {
    const after = page.after;
    const sorted = [...(this.namespaces.get(namespace) ?? [])]
      .map(([conversationId, entry]) => listing(conversationId, entry))
      .filter((each) => !after || isAfterCursor(each, after))
      .sort(
        (a, b) =>
          b.lastActiveAt - a.lastActiveAt || compareCodePoints(b.conversationId, a.conversationId),
      );
    const filter = page.metadata;
    if (!filter) {
      const conversations = sorted.slice(0, page.limit);
      return sorted.length > page.limit
        ? { conversations, next: positionOf(conversations.at(-1)!) }
        : { conversations };
    }
    const conversations: ConversationListing[] = [];
    for (let read = 0; read < sorted.length; read += 1) {
      const each = sorted[read]!;
      if (!matchesMetadata(each.metadata, filter)) {
        if (read + 1 >= FILTER_SCAN_BUDGET && read + 1 < sorted.length)
          return { conversations, next: positionOf(each) };
        continue;
      }
      if (conversations.length === page.limit)
        return { conversations, next: positionOf(conversations.at(-1)!) };
      conversations.push(each);
      if (read + 1 >= FILTER_SCAN_BUDGET && read + 1 < sorted.length)
        return { conversations, next: positionOf(each) };
    }
    return { conversations };
  }

  async update(
    conversationId: string,
    patch: ConversationPatch,
  ): Promise<ConversationListing | undefined> {
    const checked = checkConversationPatch(patch);
    const entry = this.namespaces.get(conversationNamespace(conversationId))?.get(conversationId);
    if (!entry) return undefined;
    const metadata = checked.metadata ? mergeMetadata(entry.metadata, checked.metadata) : undefined;
    if (checked.title !== undefined) entry.title = checked.title ?? '';
    if (metadata) entry.metadata = metadata;
    return listing(conversationId, entry);
  }

  async remove(conversationId: string): Promise<void> {
    this.namespaces.get(conversationNamespace(conversationId))?.delete(conversationId);
  }
}

/** An entry as a listing (copies: a caller cannot change the entry). */
function listing(conversationId: string, entry: Entry): ConversationListing {
  return {
    conversationId,
    lastActiveAt: entry.lastActiveAt,
    ...(entry.title ? { title: entry.title } : {}),
    ...(entry.preview ? { preview: entry.preview } : {}),
    ...(Object.keys(entry.metadata).length > 0 ? { metadata: { ...entry.metadata } } : {}),
  };
}
