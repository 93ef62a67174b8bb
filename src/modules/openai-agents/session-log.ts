import type { AgentInputItem } from '@openai/agents';
import type {
  ChatMessage,
  StoredChatMessage,
} from '../../common/messages/chat-message.interface.js';
import { type EncodedValue, decodeValue, encodeValue, isEncodedValue } from './item-codec.js';
import { itemsOfNativeMessage, toNativeMessage } from './native-message.js';

/**
 * The metadata key under which a session keeps what it wrote: `{ item }` on a message holding one
 * SDK item (exact, encoded), `{ edit }` on a marker that removes or replaces earlier items.
 */
export const OPENAI_AGENTS_METADATA_KEY = 'openaiAgents';

/** One item of the log: a message of the session's, or the `part`-th item read from another. */
export interface ItemKey {
  id: string;
  part?: number;
}

/** What an edit marker does, stored in its metadata. */
export interface EditRecord {
  remove?: ItemKey[];
  replace?: Array<ItemKey & { item: EncodedValue }>;
  /** The history transaction the marker applied (`applyHistoryTransaction`), for idempotency. */
  operation?: { id: string; digest: string };
}

/** A live item of the session: where it is in the log, and the item. */
export interface LiveItem {
  key: ItemKey;
  /** The message it came from. */
  message: StoredChatMessage;
  /** The replacement an edit made, if one did. */
  replacement?: EncodedValue;
  encoded: EncodedValue;
}

/** A message of the session's holding one item: the library's reading of it, and the exact item. */
export function itemMessage(item: AgentInputItem, id: string, label = 'items'): ChatMessage {
  const encoded = encodeValue(item, label);
  return {
    ...toNativeMessage(item),
    id,
    metadata: { [OPENAI_AGENTS_METADATA_KEY]: { item: encoded } },
  };
}

/**
 * A marker message: an assistant message without content (left out of prompts by the library's
 * own model adapters) whose metadata says which items it removes or replaces.
 */
export function editMessage(edit: EditRecord, id: string): ChatMessage {
  return {
    id,
    role: 'assistant',
    content: null,
    metadata: { [OPENAI_AGENTS_METADATA_KEY]: { edit } },
  };
}

function recordOf(message: ChatMessage): { item?: unknown; edit?: EditRecord } | undefined {
  const record = message.metadata?.[OPENAI_AGENTS_METADATA_KEY];
  return typeof record === 'object' && record !== null ? (record as { item?: unknown }) : undefined;
}

/** The marker's edit, if the message is one. */
export function editOf(message: ChatMessage): EditRecord | undefined {
  const edit = recordOf(message)?.edit;
  return typeof edit === 'object' && edit !== null ? edit : undefined;
}

/** The string form of a key, for maps. */
export function keyText(key: ItemKey): string {
  return `${key.part ?? 0}:${key.id}`;
}

/** The encoded items a message holds: its own item, or those read from a message of another writer. */
function encodedItemsOf(message: StoredChatMessage): EncodedValue[] {
  const record = recordOf(message);
  if (record?.edit) return [];
  if (isEncodedValue(record?.item)) return [record.item];
  return itemsOfNativeMessage(message).map((item) => encodeValue(item, 'items'));
}

/**
 * Folds the log from its newest message back: a marker always comes after the items it edits, so
 * the newest marker to name an item decides it (removed, or replaced) before the item is reached.
 * Feed it messages newest first; it gathers the live items, newest first.
 */
export class LogFold {
  private readonly decided = new Map<string, 'removed' | EncodedValue>();
  /** The live items found so far, newest first. */
  readonly newestFirst: LiveItem[] = [];
  /** The transactions applied, by operation id, with their digests. */
  readonly operations = new Map<string, string>();

  /** Takes the log's next-older message. */
  add(message: StoredChatMessage): void {
    const edit = editOf(message);
    if (edit) {
      if (edit.operation && !this.operations.has(edit.operation.id))
        this.operations.set(edit.operation.id, edit.operation.digest);
      for (const key of edit.remove ?? [])
        if (!this.decided.has(keyText(key))) this.decided.set(keyText(key), 'removed');
      for (const { item, ...key } of edit.replace ?? [])
        if (!this.decided.has(keyText(key))) this.decided.set(keyText(key), item);
      return;
    }
    const items = encodedItemsOf(message);
    for (let part = items.length - 1; part >= 0; part -= 1) {
      const key: ItemKey = part === 0 ? { id: message.id } : { id: message.id, part };
      const decision = this.decided.get(keyText(key));
      if (decision === 'removed') continue;
      this.newestFirst.push({
        key,
        message,
        encoded: decision ?? items[part]!,
        ...(decision ? { replacement: decision } : {}),
      });
    }
  }

  /** The live items, oldest first. */
  oldestFirst(): LiveItem[] {
    return [...this.newestFirst].reverse();
  }
}

/** The SDK item a live item holds (a fresh copy). */
export function decodeItem(live: LiveItem): AgentInputItem {
  return decodeValue(live.encoded) as AgentInputItem;
}

/**
 * The conversation as the library reads it once the session's edits are applied: markers and the
 * items they removed left out, replaced items read from their replacement (keeping their message's
 * id). A message of another writer whose items were all kept comes back as stored; one partly
 * edited comes back as one message per kept item, with ids `<id>#<part>`.
 */
export function liveSessionMessages(messages: readonly StoredChatMessage[]): StoredChatMessage[] {
  const fold = new LogFold();
  for (let index = messages.length - 1; index >= 0; index -= 1) fold.add(messages[index]!);
  const live = fold.oldestFirst();
  const keptParts = new Map<string, number>();
  for (const item of live)
    if (!item.replacement)
      keptParts.set(item.message.id, (keptParts.get(item.message.id) ?? 0) + 1);
  const output: StoredChatMessage[] = [];
  for (const item of live) {
    const own = recordOf(item.message)?.item !== undefined;
    const whole = own || keptParts.get(item.message.id) === encodedItemsOf(item.message).length;
    if (!item.replacement && whole) {
      if (output.at(-1) !== item.message) output.push(item.message);
      continue;
    }
    const id = own ? item.message.id : `${item.message.id}#${item.key.part ?? 0}`;
    output.push({ ...itemMessage(decodeItem(item), id), id });
  }
  return output;
}
