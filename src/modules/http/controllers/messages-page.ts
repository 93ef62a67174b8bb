import type {
  ChatMemoryStore,
  ChatPageJson,
  ChatPageOptions,
} from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import { pageByRanges } from './page-budget.js';

/**
 * The messages route's page from any store, its messages as JSON text: the stored JSON as it is
 * where the store has `pageJson` (every built-in one), else `page` or `version` and `range` chunks,
 * serialized here.
 */
export async function readMessagesPage(
  store: ChatMemoryStore,
  conversationId: string,
  options: ChatPageOptions,
): Promise<ChatPageJson> {
  if (store.pageJson) return store.pageJson(conversationId, options);
  const { before, count, maxBytes } = options;
  const { version, messages, from } = store.page
    ? await store.page(conversationId, options)
    : await pageByRanges(store, conversationId, before, count, maxBytes);
  return { version, messagesJson: JSON.stringify(messages), from };
}

/**
 * The route's answer (`MessagesPageDto`) as JSON text, the page's messages spliced in as read:
 * `conversationId` as the caller named it, the version, the messages, and `before` unless the page
 * starts at the first message.
 */
export function messagesPageBody(conversationId: string, page: ChatPageJson): string {
  const before = page.from > 0 ? `,"before":${page.from + 1}` : '';
  return `{"conversationId":${JSON.stringify(conversationId)},"version":${page.version},"messages":${page.messagesJson}${before}}`;
}
