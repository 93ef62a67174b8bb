import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import type { AgentRunInput } from '../interfaces/agent-run.interface.js';
import { userMessage } from '../turn-message.js';

/** The limits of a conversation's metadata (like Stripe's and OpenAI's). */
export const CONVERSATION_METADATA_LIMITS = {
  /** Keys a conversation holds at most. */
  maxKeys: 16,
  /** Key/value pairs a list filter holds at most. */
  maxFilterPairs: 5,
  /** The longest value, in characters (code points). */
  maxValueLength: 512,
} as const;

/** A metadata key: 1–64 characters of letters, digits, `_`, `.` and `-`. */
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
/** NUL (PostgreSQL refuses it in text and JSON) and UTF-16 halves without their pair (not UTF-8). */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Control characters, which a title does not hold. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Longest default title and preview, in characters (code points), `…` included. */
const TITLE_LENGTH = 80;
const PREVIEW_LENGTH = 120;
/** Longest title a caller sets, in characters after trimming. */
const MAX_TITLE_LENGTH = 200;

/** What a turn tells the directory about its conversation: a default title and a preview. */
export interface ConversationTurnText {
  /** The title the conversation takes if it has none yet (and never had one cleared). */
  title?: string;
  /** The newest user message, single-lined and cut. */
  preview?: string;
}

/** `text` on one line: every run of whitespace or control characters becomes one space. */
function singleLine(text: string): string {
  return text
    .replace(/[\s\u0000-\u001f\u007f]+/g, ' ')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .trim();
}

/** `text` cut to `max` characters (code points), at a word boundary when there is one, with `…`. */
export function cutText(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  // A word boundary in the second half; a single very long word is cut where it is.
  const cut = space >= head.length / 2 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

/** The text of a user turn's message: its text parts, else `[image]` or `[file]`. */
function messageText(message: AgentRunInput['message']): string {
  const { role, content } = userMessage(message);
  if (role !== 'user') return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts = content.filter((part) => part?.type === 'text').map((part) => part.text);
  const text = texts.join(' ').trim();
  if (text) return text;
  if (content.some((part) => part?.type === 'image')) return '[image]';
  if (content.some((part) => part?.type === 'file')) return '[file]';
  return '';
}

/**
 * The default title (the first 80 characters, cut at a word) and the preview (120) of a turn whose
 * user message is `message`: its text on one line. Empty for a message without text or attachment.
 */
export function conversationTurnText(message: AgentRunInput['message']): ConversationTurnText {
  const text = singleLine(messageText(message));
  if (!text) return {};
  return { title: cutText(text, TITLE_LENGTH), preview: cutText(text, PREVIEW_LENGTH) };
}

/** A change of a conversation's title and metadata: see {@link ConversationPatch}. */
export interface ConversationPatchInput {
  title?: string | null;
  metadata?: Record<string, string | null>;
}

/**
 * A patch checked and normalized: the title trimmed (1–200 characters, no control characters) or
 * `null`; each metadata key 1–64 characters of `[A-Za-z0-9_.-]`, each value a string of at most 512
 * characters, or `null` to delete the key. Throws `InvalidArgumentError` naming the key at fault.
 */
export function checkConversationPatch(patch: ConversationPatchInput): ConversationPatchInput {
  if (typeof patch !== 'object' || patch === null)
    throw new InvalidArgumentError('patch', 'must be an object');
  const checked: ConversationPatchInput = {};
  if (patch.title !== undefined) checked.title = patch.title === null ? null : title(patch.title);
  if (patch.metadata !== undefined) {
    const metadata = patch.metadata;
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
      throw new InvalidArgumentError('metadata', 'must be an object of strings');
    for (const [key, value] of Object.entries(metadata)) {
      metadataKey(key);
      if (value !== null) metadataValue(key, value);
    }
    checked.metadata = { ...metadata };
  }
  return checked;
}

function title(value: unknown): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  const length = Array.from(trimmed).length;
  if (length < 1 || length > MAX_TITLE_LENGTH || CONTROL.test(trimmed) || UNSTORABLE.test(trimmed))
    throw new InvalidArgumentError(
      'title',
      `must be 1–${MAX_TITLE_LENGTH} characters (after trimming) without control characters, or null to clear it`,
    );
  return trimmed;
}

function metadataKey(key: string): void {
  // `__proto__` would set an object's prototype instead of a key.
  if (!METADATA_KEY.test(key) || key === '__proto__')
    throw new InvalidArgumentError(
      `metadata key ${JSON.stringify(key)}`,
      'must be 1–64 characters of letters, digits, _ . -',
    );
}

function metadataValue(key: string, value: unknown): void {
  if (
    typeof value !== 'string' ||
    Array.from(value).length > CONVERSATION_METADATA_LIMITS.maxValueLength ||
    UNSTORABLE.test(value)
  )
    throw new InvalidArgumentError(
      `metadata value of ${JSON.stringify(key)}`,
      `must be a string of at most ${CONVERSATION_METADATA_LIMITS.maxValueLength} characters (no NUL)`,
    );
}

/**
 * `current` with `patch` merged in (a `null` value deletes its key); throws `InvalidArgumentError`
 * when the result would hold more than 16 keys.
 */
export function mergeMetadata(
  current: Readonly<Record<string, string>>,
  patch: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(patch))
    if (value === null) merged.delete(key);
    else merged.set(key, value);
  assertMetadataCount(merged.size);
  return Object.fromEntries(merged);
}

/** Throws the error of a merge that would leave `count` keys, over the cap. */
export function assertMetadataCount(count: number): void {
  if (count > CONVERSATION_METADATA_LIMITS.maxKeys)
    throw new InvalidArgumentError(
      'metadata',
      `may hold at most ${CONVERSATION_METADATA_LIMITS.maxKeys} keys; this change would leave ${count}`,
    );
}

/** Checks a list filter: 1–5 pairs of a valid key and a string value. */
export function checkMetadataFilter(filter: Record<string, string>): void {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw new InvalidArgumentError('metadata', 'must be an object of strings');
  const entries = Object.entries(filter);
  if (entries.length > CONVERSATION_METADATA_LIMITS.maxFilterPairs)
    throw new InvalidArgumentError(
      'metadata',
      `a filter holds at most ${CONVERSATION_METADATA_LIMITS.maxFilterPairs} key/value pairs`,
    );
  for (const [key, value] of entries) {
    metadataKey(key);
    metadataValue(key, value);
  }
}

/** Whether `metadata` holds every pair of `filter`. */
export function matchesMetadata(
  metadata: Readonly<Record<string, string>> | undefined,
  filter: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(filter).every(
    ([key, value]) =>
      metadata !== undefined && Object.hasOwn(metadata, key) && metadata[key] === value,
  );
}
