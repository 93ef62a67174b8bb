import type { StoredChatMessage } from '../../../common/messages/chat-message.interface.js';
import type {
  ChatMemoryStore,
  ChatPageJson,
  ChatPageOptions,
} from '../../chat-memory/interfaces/chat-memory-store.interface.js';
import { JSON_TEXT, type JsonTextAnswer } from '../platform/json-text-answer.js';
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
 * The messages route's answer (`MessagesPageDto`): `conversationId`, `version`, `messages` and
 * `before` (absent on the first message) as own fields, as any answer has them — `messages` parsed
 * from the page's JSON only when something reads it (an app's interceptor) — and sent as JSON text
 * with the stored messages spliced in as read (`sendJsonTextAsIs`).
 */
export class MessagesPageAnswer implements JsonTextAnswer {
  declare readonly conversationId: string;
  declare readonly version: number;
  declare readonly messages: StoredChatMessage[];
  declare readonly before?: number;
  readonly #page: ChatPageJson;

  /** @throws Error when the store's page is malformed (a 500: nothing of it is sent). */
  constructor(conversationId: string, page: ChatPageJson) {
    assertWellFormed(page);
    this.#page = page;
    let parsed: StoredChatMessage[] | undefined;
    Object.defineProperties(this, {
      conversationId: { value: conversationId, enumerable: true },
      version: { value: page.version, enumerable: true },
      messages: {
        get: () => (parsed ??= JSON.parse(page.messagesJson) as StoredChatMessage[]),
        enumerable: true,
      },
      ...(page.from > 0 ? { before: { value: page.from + 1, enumerable: true } } : {}),
    });
  }

  [JSON_TEXT](): string {
    const before = this.#page.from > 0 ? `,"before":${this.#page.from + 1}` : '';
    return `{"conversationId":${JSON.stringify(this.conversationId)},"version":${this.#page.version},"messages":${this.#page.messagesJson}${before}}`;
  }
}

/** A page the answer can be written from: whole numbers for its positions, an array's text. */
function assertWellFormed(page: ChatPageJson): void {
  const position = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
  const text = page.messagesJson;
  const array = typeof text === 'string' && text.startsWith('[') && text.endsWith(']');
  if (!position(page.version) || !position(page.from) || !array)
    throw new Error(
      "The chat store's pageJson returned a malformed page (version and from must be whole numbers, messagesJson a JSON array's text)",
    );
}
