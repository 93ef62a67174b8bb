import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../errors/invalid-argument.error.js';
import { containsNul, exceedsUtf8Bytes, hasLoneSurrogate, utf8ByteLength } from '../utf8.js';
import { InvalidMessageError, NUL_IN_STRING } from './invalid-message.error.js';
import { CHAT_ROLES, type ChatMessage, type ChatRole } from './chat-message.interface.js';
import { copyContentParts } from './content-parts.js';
import { copyProviderMetadata } from './provider-metadata.js';
import type { PreparedMessage } from './prepared-message.js';

/** Longest conversation or message id, in UTF-8 bytes. */
export const MAX_ID_BYTES = 255;

const MESSAGE_FIELDS = new Set([
  'id',
  'role',
  'content',
  'toolCalls',
  'toolCallId',
  'name',
  'metadata',
]);
const TOOL_CALL_FIELDS = new Set(['id', 'name', 'arguments', 'providerMetadata']);

/** Checks a conversation id: a non-empty string of at most 255 UTF-8 bytes without U+0000. */
export function assertConversationId(
  conversationId: unknown,
  argument = 'conversationId',
): asserts conversationId is string {
  assertId(conversationId, argument, InvalidArgumentError);
}

/** Checks a count or position argument: an integer ≥ `min`. */
export function assertInteger(
  value: unknown,
  argument: string,
  min: number,
): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidArgumentError(argument, `must be an integer ≥ ${min}, got ${describe(value)}`);
  }
}

/**
 * Validates a batch and encodes every message, assigning a UUID to each message without an id.
 * Throws {@link InvalidMessageError} (or `InvalidArgumentError` for the options) before any I/O.
 */
export function prepareBatch(messages: unknown, expectedVersion: unknown): PreparedMessage[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError('messages', `must be an array, got ${describe(messages)}`);
  }
  if (expectedVersion !== undefined) assertInteger(expectedVersion, 'expectedVersion', 0);
  if (messages.length === 1) return [prepareMessage(messages[0], 'messages[0]')];
  const seen = new Set<string>();
  return messages.map((message: unknown, index) => {
    const prepared = prepareMessage(message, `messages[${index}]`);
    if (seen.has(prepared.id)) {
      throw new InvalidMessageError(
        `messages[${index}].id`,
        `"${prepared.id}" appears twice in the batch`,
      );
    }
    seen.add(prepared.id);
    return prepared;
  });
}

/**
 * Checks messages as a store checks them before any I/O — the kernel and the agent validate their
 * input this way — without preparing them for storage (no id is generated, nothing is kept).
 * Throws {@link InvalidMessageError} naming the message and field at fault.
 */
export function validateMessages(messages: unknown): asserts messages is ChatMessage[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError('messages', `must be an array, got ${describe(messages)}`);
  }
  const seen = new Set<string>();
  messages.forEach((value: unknown, index) => {
    const path = `messages[${index}]`;
    const message = checkMessage(value, path);
    encode(message, message.id ?? '', path);
    if (message.id === undefined) return;
    if (seen.has(message.id))
      throw new InvalidMessageError(`${path}.id`, `"${message.id}" appears twice in the batch`);
    seen.add(message.id);
  });
}

function prepareMessage(value: unknown, path: string): PreparedMessage {
  const message = checkMessage(value, path);
  const id = message.id ?? randomUUID();
  return {
    id,
    role: message.role as PreparedMessage['role'],
    json: encode(message, id, path),
  };
}

/** Every field check of one message (the JSON encoding checks the contents). */
function checkMessage(
  value: unknown,
  path: string,
): Partial<ChatMessage> & Record<string, unknown> {
  if (!isPlainObject(value))
    throw new InvalidMessageError(path, `must be an object, got ${describe(value)}`);
  const message = value as Partial<ChatMessage> & Record<string, unknown>;
  for (const key of Object.keys(message)) {
    if (!MESSAGE_FIELDS.has(key))
      throw new InvalidMessageError(`${path}.${key}`, 'is not a message field');
  }
  if (!CHAT_ROLES.includes(message.role as never)) {
    throw new InvalidMessageError(
      `${path}.role`,
      `must be one of ${CHAT_ROLES.join(', ')}, got ${describe(message.role)}`,
    );
  }
  // Read once; parts are checked as they are copied for encoding.
  const content = message.content;
  if (!Array.isArray(content) && content !== null && typeof content !== 'string') {
    throw new InvalidMessageError(
      `${path}.content`,
      `must be a string, an array of parts or null, got ${describe(content)}`,
    );
  }
  if (message.id !== undefined) assertId(message.id, `${path}.id`, InvalidMessageError);
  if (message.name !== undefined && typeof message.name !== 'string') {
    throw new InvalidMessageError(
      `${path}.name`,
      `must be a string, got ${describe(message.name)}`,
    );
  }
  if (message.role === 'tool' || message.toolCallId !== undefined) {
    assertNonEmptyString(
      message.toolCallId,
      `${path}.toolCallId`,
      message.role === 'tool' ? 'a tool message needs it: ' : '',
    );
  }
  if (message.toolCalls !== undefined) assertToolCalls(message.toolCalls, `${path}.toolCalls`);
  if (message.metadata !== undefined && !isPlainObject(message.metadata)) {
    throw new InvalidMessageError(
      `${path}.metadata`,
      `must be a plain object, got ${describe(message.metadata)}`,
    );
  }
  return message;
}

function assertToolCalls(toolCalls: unknown, path: string): void {
  if (!Array.isArray(toolCalls))
    throw new InvalidMessageError(path, `must be an array, got ${describe(toolCalls)}`);
  // Array.from visits holes (forEach skips them): a hole is a missing call.
  Array.from(toolCalls as unknown[]).forEach((call: unknown, index) => {
    const callPath = `${path}[${index}]`;
    if (!isPlainObject(call))
      throw new InvalidMessageError(callPath, `must be an object, got ${describe(call)}`);
    for (const key of Object.keys(call)) {
      if (!TOOL_CALL_FIELDS.has(key))
        throw new InvalidMessageError(`${callPath}.${key}`, 'is not a tool call field');
    }
    const { id, name, arguments: args } = call as Record<string, unknown>;
    assertNonEmptyString(id, `${callPath}.id`);
    assertNonEmptyString(name, `${callPath}.name`);
    if (typeof args !== 'string') {
      throw new InvalidMessageError(
        `${callPath}.arguments`,
        `must be JSON text (a string), got ${describe(args)}`,
      );
    }
  });
}

/**
 * Encodes a checked message as JSON with `id` first, rejecting U+0000 and values JSON cannot hold.
 * It writes a copy whose every field is read once, tool calls copied field by field (so no `toJSON`
 * or getter of the caller's runs while writing). Without free-form `metadata` the native writer
 * runs alone; with it, a replacer checks every value it writes.
 */
function encode(
  message: Partial<ChatMessage> & Record<string, unknown>,
  id: string,
  path: string,
): string {
  const record: Record<string, unknown> = { id, ...message };
  record.id = id; // stays first, also when the message's own `id` key is undefined
  copyOwnFields(record, path);
  if (record.metadata === undefined && !Array.isArray(record.content))
    return JSON.stringify(record);
  try {
    return JSON.stringify(record, (key, value: unknown) => {
      if (containsNul(key)) throw new InvalidMessageError(path, 'a key holds U+0000');
      if (typeof value === 'string' && containsNul(value)) {
        throw new InvalidMessageError(path, NUL_IN_STRING);
      }
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new InvalidMessageError(
          path,
          `holds the number ${value}, which JSON cannot represent`,
        );
      }
      return value;
    });
  } catch (error) {
    if (error instanceof InvalidMessageError) throw error;
    throw new InvalidMessageError(path, `is not JSON-serializable (${(error as Error).message})`);
  }
}

/**
 * Checks the copy's own fields (all but `metadata`) as they will be written: plain strings without
 * U+0000 (`content` may be null), tool calls replaced by plain copies of their three strings. A
 * field that is not what {@link checkMessage} saw (a getter answering differently) is refused.
 */
function copyOwnFields(record: Record<string, unknown>, path: string): void {
  assertText(record.role, path);
  if (record.name !== undefined) assertText(record.name, path);
  if (record.toolCallId !== undefined) assertText(record.toolCallId, path);
  if (Array.isArray(record.content))
    record.content = copyContentParts(record.content, record.role as ChatRole, `${path}.content`);
  else if (record.content !== null) assertText(record.content, path);
  const calls = record.toolCalls;
  if (calls === undefined) return;
  if (!Array.isArray(calls)) throw changedWhileValidated(path);
  record.toolCalls = Array.from(calls as unknown[], (call, index) => {
    if (!isPlainObject(call)) throw changedWhileValidated(path);
    const copy: Record<string, unknown> = {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    };
    assertText(copy.id, path);
    assertText(copy.name, path);
    assertText(copy.arguments, path);
    if (call.providerMetadata !== undefined)
      copy.providerMetadata = copyProviderMetadata(
        call.providerMetadata,
        `${path}.toolCalls[${index}].providerMetadata`,
      );
    return copy;
  });
}

/** A field to be written must still be a string (as checked), without U+0000. */
function assertText(value: unknown, path: string): void {
  if (typeof value !== 'string') throw changedWhileValidated(path);
  if (containsNul(value)) throw new InvalidMessageError(path, NUL_IN_STRING);
}

function changedWhileValidated(path: string): InvalidMessageError {
  return new InvalidMessageError(path, 'changed while it was being validated');
}

function assertId(
  value: unknown,
  argument: string,
  ErrorClass: typeof InvalidArgumentError,
): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ErrorClass(argument, `must be a non-empty string, got ${describe(value)}`);
  }
  if (exceedsUtf8Bytes(value, MAX_ID_BYTES)) {
    throw new ErrorClass(
      argument,
      `must be at most ${MAX_ID_BYTES} UTF-8 bytes, got ${utf8ByteLength(value)}`,
    );
  }
  if (containsNul(value)) throw new ErrorClass(argument, 'must not hold U+0000');
  if (hasLoneSurrogate(value)) {
    throw new ErrorClass(argument, 'must be well-formed Unicode (it holds a lone surrogate)');
  }
}

function assertNonEmptyString(value: unknown, argument: string, hint = ''): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidMessageError(
      argument,
      `${hint}must be a non-empty string, got ${describe(value)}`,
    );
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (undefined)';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
