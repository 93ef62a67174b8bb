import { ValueTooLargeError } from '../../../common/errors/value-too-large.error.js';
import { canonicalJson } from '../../../common/canonical-json.js';
import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import {
  containsNul,
  exceedsUtf8Bytes,
  hasLoneSurrogate,
  utf8ByteLength,
} from '../../../common/utf8.js';
import { FORMED_PREFIX, derivedRecordText, isDerivedEntity } from '../recall/derived-entities.js';
import { type StoredEmbedding, packEmbedding } from '../recall/embedding/embedding-bytes.js';
import { type RecordTextFunction, defaultTextOfInput } from '../recall/search-text.js';
import { IndexedTextMemo } from '../recall/indexed-text-memo.js';
import { TextAnalyzer } from '../recall/text-analyzer.js';
import {
  type JsonValue,
  type LongtermSaveInput,
  MAX_ENTITY_ID_BYTES,
  MAX_LONGTERM_KEY_BYTES,
  MAX_SEARCH_LIMIT,
} from '../interfaces/longterm-store.interface.js';

/** A validated row, ready for a backend: canonical value text (or `null` for a tombstone). */
export interface PreparedRecord {
  entityId: string;
  key: string;
  /** Canonical JSON, or `null` for a delete tombstone. */
  value: string | null;
  seq: number;
  updatedAt: number;
  expiresAt: number | null;
  /** The indexed text (the analyzer's `indexedText` of the record's text), or `null` for a tombstone. */
  text: string | null;
  /** The record's vector, or `null` (none given, or a tombstone). */
  embedding: StoredEmbedding | null;
}

export function assertEntityId(value: unknown, argument = 'entityId'): asserts value is string {
  assertText(value, argument, MAX_ENTITY_ID_BYTES);
}

export function assertKey(value: unknown, argument = 'key'): asserts value is string {
  assertText(value, argument, MAX_LONGTERM_KEY_BYTES);
}

/** Whether a value is a valid seq (a safe integer ≥ 0). */
function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function assertSeq(value: unknown, argument = 'seq'): asserts value is number {
  if (!isSeq(value)) {
    throw new InvalidArgumentError(argument, `must be an integer ≥ 0, got ${String(value)}`);
  }
}

export function assertLimit(value: unknown): asserts value is number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_SEARCH_LIMIT
  ) {
    throw new InvalidArgumentError(
      'limit',
      `must be an integer from 1 to ${MAX_SEARCH_LIMIT}, got ${String(value)}`,
    );
  }
}

export function assertPrefix(value: unknown): asserts value is string {
  if (typeof value !== 'string')
    throw new InvalidArgumentError('prefix', `must be a string, got ${typeof value}`);
  if (exceedsUtf8Bytes(value, MAX_LONGTERM_KEY_BYTES))
    throw new InvalidArgumentError(
      'prefix',
      `must be at most ${MAX_LONGTERM_KEY_BYTES} UTF-8 bytes`,
    );
  if (containsNul(value)) throw new InvalidArgumentError('prefix', 'must not hold U+0000');
  if (hasLoneSurrogate(value)) throw new InvalidArgumentError('prefix', LONE_SURROGATE_MESSAGE);
}

/** What a save must satisfy beyond its own fields. */
export interface RecordRules {
  /** TTL of a save that gives none. */
  defaultTtlMs: number | undefined;
  /** Most UTF-8 bytes of a value's JSON. */
  maxValueBytes: number;
  /** The text a record is found by (default: `defaultRecordText`). */
  recordText?: RecordTextFunction;
  /** How that text becomes search terms (default: English stems). */
  analyzer?: TextAnalyzer;
  /** The store's memo of its records' indexed texts (none: every save is analyzed). */
  memo?: IndexedTextMemo;
}

/**
 * One store's rules (`maxValueBytes` by default {@link DEFAULT_MAX_LONGTERM_VALUE_BYTES}), with a
 * memo of its records' indexed texts of its own unless text search is off: per store, since a
 * source means one thing in a store (its own `recordText`, or none).
 */
export function storeRecordRules(
  settings: Omit<RecordRules, 'memo' | 'maxValueBytes'> & { maxValueBytes?: number },
): RecordRules {
  const rules = {
    ...settings,
    maxValueBytes: settings.maxValueBytes ?? DEFAULT_MAX_LONGTERM_VALUE_BYTES,
  };
  return rules.analyzer?.enabled === false ? rules : { ...rules, memo: new IndexedTextMemo() };
}

/** Default most bytes of one long-term value's JSON: 256 KiB. */
export const DEFAULT_MAX_LONGTERM_VALUE_BYTES = 256 * 1024;

/** Validates a save and computes its stored form (`expiresAt = updatedAt + ttlMs`). */
export function prepareRecord(
  input: LongtermSaveInput,
  now: number,
  rules: RecordRules,
): PreparedRecord {
  return prepareAt(input, now, rules, undefined, undefined);
}

/**
 * {@link prepareRecord} for the record at `index` of a batch (`undefined`: a lone record), its
 * arguments named in errors only (a valid row builds no names). `checkedEntity` is an entity id
 * this batch has already validated.
 */
function prepareAt(
  input: LongtermSaveInput,
  now: number,
  rules: RecordRules,
  index: number | undefined,
  checkedEntity: string | undefined,
): PreparedRecord {
  const { defaultTtlMs, maxValueBytes, analyzer = TextAnalyzer.english } = rules;
  const path = index === undefined ? 'record' : `records[${index}]`;
  if (typeof input !== 'object' || input === null)
    throw new InvalidArgumentError(path, 'must be an object');
  if (input.entityId !== checkedEntity || checkedEntity === undefined)
    throwIfProblem(textProblem(input.entityId, MAX_ENTITY_ID_BYTES), path, 'entityId');
  throwIfProblem(textProblem(input.key, MAX_LONGTERM_KEY_BYTES), path, 'key');
  if (!isSeq(input.seq)) assertSeq(input.seq, `${path}.seq`);
  const updatedAt = input.updatedAt ?? now;
  if (!Number.isSafeInteger(updatedAt) || updatedAt < 0)
    throw new InvalidArgumentError(
      `${path}.updatedAt`,
      `must be epoch ms, got ${String(updatedAt)}`,
    );
  // Formed memories keep their history: the tier's default TTL is not theirs (a save may give one).
  const ttlMs =
    input.ttlMs ?? (input.entityId.startsWith(FORMED_PREFIX) ? undefined : defaultTtlMs);
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs > 0)) {
    throw new InvalidArgumentError(
      `${path}.ttlMs`,
      `must be a positive integer, got ${String(ttlMs)}`,
    );
  }
  if (input.value === undefined)
    throw new InvalidArgumentError(`${path}.value`, 'must be a JSON value (use null for none)');
  let value: string;
  try {
    value = canonicalJson(input.value);
  } catch (error) {
    throw new InvalidArgumentError(`${path}.value`, (error as Error).message);
  }
  if (exceedsUtf8Bytes(value, maxValueBytes))
    throw new ValueTooLargeError(`${path}.value`, utf8ByteLength(value), maxValueBytes);
  return {
    entityId: input.entityId,
    key: input.key,
    value,
    seq: input.seq,
    updatedAt,
    expiresAt: ttlMs === undefined ? null : updatedAt + ttlMs,
    // With text search off, no text is made: `recordText` is not called.
    text: analyzer.enabled ? indexedTextOf(rules, analyzer, input, value, path) : '',
    embedding:
      input.embedding === undefined
        ? null
        : packEmbedding(input.embedding?.model, input.embedding?.vector, `${path}.embedding`),
  };
}

/**
 * The record's indexed text, through the store's memo. The default text is a function of the
 * value alone, so it is remembered by the value's canonical JSON: a record saved again with the
 * same value is neither walked nor analyzed again (the same value with its keys in another order
 * has its words in another order, which indexes the same words as often). A derived entity's text
 * and `recordText`'s answer are remembered by the text itself.
 */
function indexedTextOf(
  { memo, recordText }: RecordRules,
  analyzer: TextAnalyzer,
  input: LongtermSaveInput,
  value: string,
  path: string,
): string {
  const { entityId, key } = input;
  // No closures here: this runs for every record of every batch.
  const ownText = isDerivedEntity(entityId)
    ? derivedRecordText(input.value)
    : recordText
      ? textOf(recordText, JSON.parse(value) as JsonValue, key, path)
      : undefined;
  const source = ownText ?? value;
  const remembered = memo?.recall(entityId, key, source);
  if (remembered !== undefined) return remembered;
  // The default text as `load` will return the value (walking plain input without parsing).
  const indexed = analyzer.indexedText(ownText ?? defaultTextOfInput(input.value, value));
  memo?.remember(entityId, key, source, indexed);
  return indexed;
}

/** The record's text, a user function's failure or non-string answer reported as a bad value. */
function textOf(
  recordText: RecordTextFunction,
  value: JsonValue,
  key: string,
  path: string,
): string {
  let text: unknown;
  try {
    text = recordText(value, key);
  } catch (error) {
    throw new InvalidArgumentError(
      `${path}.value`,
      `recordText failed: ${(error as Error).message}`,
    );
  }
  if (typeof text !== 'string')
    throw new InvalidArgumentError(
      `${path}.value`,
      `recordText must return a string, got ${typeof text}`,
    );
  return text;
}

/** Validates a batch: every row first, and no (entity, key) twice. */
export function prepareBatch(inputs: unknown, now: number, rules: RecordRules): PreparedRecord[] {
  if (!Array.isArray(inputs)) throw new InvalidArgumentError('records', 'must be an array');
  // A batch's rows mostly share one entity: its id is checked once, its keys kept in one set.
  const keysByEntity = new Map<string, Set<string>>();
  let entity: string | undefined;
  let keys: Set<string> | undefined;
  return inputs.map((input: LongtermSaveInput, index) => {
    const prepared = prepareAt(input, now, rules, index, entity);
    if (prepared.entityId !== entity) {
      entity = prepared.entityId;
      keys = keysByEntity.get(entity);
      if (!keys) keysByEntity.set(entity, (keys = new Set()));
    }
    if (keys!.has(prepared.key))
      throw new InvalidArgumentError(
        `records[${index}].key`,
        `"${prepared.key}" appears twice in the batch`,
      );
    keys!.add(prepared.key);
    return prepared;
  });
}

function assertText(value: unknown, argument: string, maxBytes: number): void {
  const problem = textProblem(value, maxBytes);
  if (problem !== undefined) throw new InvalidArgumentError(argument, problem);
}

/** Throws the problem, if any, as the named field's of the record at `path`. */
function throwIfProblem(problem: string | undefined, path: string, field: string): void {
  if (problem !== undefined) throw new InvalidArgumentError(`${path}.${field}`, problem);
}

/** What is wrong with an id or key, or `undefined` when nothing is. */
function textProblem(value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== 'string' || value.length === 0)
    return `must be a non-empty string, got ${JSON.stringify(value)}`;
  if (exceedsUtf8Bytes(value, maxBytes))
    return `must be at most ${maxBytes} UTF-8 bytes, got ${utf8ByteLength(value)}`;
  if (containsNul(value)) return 'must not hold U+0000';
  if (hasLoneSurrogate(value)) return LONE_SURROGATE_MESSAGE;
  return undefined;
}

const LONE_SURROGATE_MESSAGE = 'must be well-formed Unicode (it holds a lone surrogate)';
