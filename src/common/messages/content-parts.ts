import { containsNul } from '../utf8.js';
import type { ChatRole } from './chat-role.js';
import { InvalidMessageError, NUL_IN_STRING } from './invalid-message.error.js';
import { type ProviderMetadata, copyProviderMetadata } from './provider-metadata.js';

/**
 * A run of text. `providerMetadata` (e.g. OpenAI's Responses item id) is kept only beside a
 * reasoning part, where the provider needs it to pair the two (see {@link compactContent}).
 */
export interface TextPart {
  type: 'text';
  text: string;
  providerMetadata?: ProviderMetadata;
}

/**
 * An image, by `url` (http or https) or inline as base64 `data` with its `mediaType`
 * (e.g. `image/png`). Exactly one of `url` and `data`.
 */
export interface ImagePart {
  type: 'image';
  url?: string;
  data?: string;
  /** Required with `data`; optional with `url`. */
  mediaType?: string;
}

/** A file (PDF, audio, text, …), by `url` or inline base64 `data`, always with its `mediaType`. */
export interface FilePart {
  type: 'file';
  url?: string;
  data?: string;
  mediaType: string;
  filename?: string;
}

/**
 * A model's reasoning, kept with the assistant message that followed it. `providerMetadata` holds
 * what the provider needs to take it back (e.g. Anthropic's signature), as the provider gave it;
 * each provider decides whether reasoning is sent back to it.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerMetadata?: ProviderMetadata;
}

/** One part of a message's content. */
export type ContentPart = TextPart | ImagePart | FilePart | ReasoningPart;

/** The part types each role may carry (system and tool messages hold text only). */
const PARTS_BY_ROLE: Record<ChatRole, ReadonlySet<ContentPart['type']>> = {
  system: new Set(['text']),
  user: new Set(['text', 'image', 'file']),
  assistant: new Set(['text', 'image', 'file', 'reasoning']),
  tool: new Set(['text']),
};

/** The largest inline `data` of one part, decoded (5 MiB: the limit most providers set per image). */
export const MAX_INLINE_PART_BYTES = 5 * 1024 * 1024;

/** The most parts one message may hold. */
export const MAX_CONTENT_PARTS = 100;

const FIELDS: Record<ContentPart['type'], ReadonlySet<string>> = {
  text: new Set(['type', 'text', 'providerMetadata']),
  image: new Set(['type', 'url', 'data', 'mediaType']),
  file: new Set(['type', 'url', 'data', 'mediaType', 'filename']),
  reasoning: new Set(['type', 'text', 'providerMetadata']),
};
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9*][a-z0-9!#$&^_.+*-]*(;.*)?$/i;

/**
 * Checks content parts and returns a plain copy of them, each field read once: the copy is what is
 * stored. Throws {@link InvalidMessageError} naming the part and field at fault.
 */
export function copyContentParts(value: unknown, role: ChatRole, path: string): ContentPart[] {
  if (!Array.isArray(value)) throw new InvalidMessageError(path, 'must be an array of parts');
  if (value.length === 0)
    throw new InvalidMessageError(path, 'must hold at least one part (use null for no content)');
  if (value.length > MAX_CONTENT_PARTS)
    throw new InvalidMessageError(path, `must hold at most ${MAX_CONTENT_PARTS} parts`);
  const parts: ContentPart[] = [];
  // An index loop, not map: a hole in a sparse array is a missing part, not one to skip.
  for (let index = 0; index < value.length; index += 1)
    parts.push(copyPart(value[index], role, `${path}[${index}]`));
  return parts;
}

function copyPart(value: unknown, role: ChatRole, path: string): ContentPart {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidMessageError(path, 'must be an object with a type');
  const part = value as Record<string, unknown>;
  const type = part.type as ContentPart['type'];
  if (!(type in FIELDS)) {
    throw new InvalidMessageError(
      `${path}.type`,
      `must be text, image, file or reasoning, got ${JSON.stringify(part.type) ?? 'nothing'}`,
    );
  }
  if (!PARTS_BY_ROLE[role].has(type)) {
    throw new InvalidMessageError(
      `${path}.type`,
      `a ${role} message cannot carry a ${type} part (it takes ${[...PARTS_BY_ROLE[role]].join(', ')})`,
    );
  }
  for (const key of Object.keys(part)) {
    if (!FIELDS[type].has(key))
      throw new InvalidMessageError(`${path}.${key}`, `is not a field of a ${type} part`);
  }
  const metadata =
    part.providerMetadata === undefined
      ? {}
      : {
          providerMetadata: copyProviderMetadata(part.providerMetadata, `${path}.providerMetadata`),
        };
  switch (type) {
    case 'text':
      return { type, text: string(part.text, `${path}.text`), ...metadata };
    case 'reasoning':
      return { type, text: string(part.text, `${path}.text`), ...metadata };
    case 'image':
    case 'file':
      return media(type, part, path);
  }
}

function media(type: 'image' | 'file', part: Record<string, unknown>, path: string): ContentPart {
  const hasUrl = part.url !== undefined;
  const hasData = part.data !== undefined;
  if (hasUrl === hasData)
    throw new InvalidMessageError(path, `a ${type} part needs exactly one of url and data`);
  const mediaType =
    part.mediaType === undefined ? undefined : string(part.mediaType, `${path}.mediaType`);
  if (mediaType !== undefined && !MEDIA_TYPE.test(mediaType))
    throw new InvalidMessageError(`${path}.mediaType`, `"${mediaType}" is not a media type`);
  if (mediaType === undefined && (type === 'file' || hasData))
    throw new InvalidMessageError(`${path}.mediaType`, `a ${type} part with data needs it`);
  const copy: Record<string, unknown> = { type };
  if (hasUrl) copy.url = url(part.url, `${path}.url`);
  else copy.data = base64(part.data, `${path}.data`);
  if (mediaType !== undefined) copy.mediaType = mediaType;
  if (type === 'file' && part.filename !== undefined)
    copy.filename = string(part.filename, `${path}.filename`);
  return copy as unknown as ContentPart;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new InvalidMessageError(path, 'must be a string');
  if (containsNul(value)) throw new InvalidMessageError(path, NUL_IN_STRING);
  return value;
}

function url(value: unknown, path: string): string {
  const text = string(value, path);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new InvalidMessageError(path, 'must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new InvalidMessageError(
      path,
      `must be an http or https URL, got ${parsed.protocol} (inline content goes in data, as base64)`,
    );
  return text;
}

function base64(value: unknown, path: string): string {
  const text = string(value, path);
  if (text.length % 4 !== 0 || !BASE64.test(text))
    throw new InvalidMessageError(path, 'must be base64 (standard alphabet, padded)');
  const bytes = inlineBytes(text);
  if (bytes > MAX_INLINE_PART_BYTES) {
    throw new InvalidMessageError(
      path,
      `holds ${bytes} bytes, more than the ${MAX_INLINE_PART_BYTES} an inline part may hold: send a url instead`,
    );
  }
  return text;
}

/** The decoded size of base64 text. */
export function inlineBytes(base64Text: string): number {
  const padding = base64Text.endsWith('==') ? 2 : base64Text.endsWith('=') ? 1 : 0;
  return (base64Text.length / 4) * 3 - padding;
}

/**
 * The text of a message's content: the string itself, or its text parts joined by newlines
 * (reasoning, images and files left out); `''` for none.
 */
export function contentText(content: string | null | readonly ContentPart[] | undefined): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  let text = '';
  for (const part of content) {
    if (part.type !== 'text') continue;
    text = text ? `${text}\n${part.text}` : part.text;
  }
  return text;
}

/**
 * Parts as a message's content: `null` for none, the text alone for one text part, else the parts.
 * Text parts keep their provider metadata only beside a reasoning part (a provider pairs the two,
 * as OpenAI's Responses API does); elsewhere it is dropped, so a plain answer stays plain text.
 */
export function compactContent(parts: ContentPart[]): string | ContentPart[] | null {
  if (parts.length === 0) return null;
  const reasoned = parts.some((part) => part.type === 'reasoning');
  const kept = reasoned
    ? parts
    : parts.map((part) =>
        part.type === 'text' && part.providerMetadata ? { type: part.type, text: part.text } : part,
      );
  if (kept.length === 1 && kept[0]!.type === 'text' && !kept[0]!.providerMetadata)
    return kept[0]!.text;
  return kept;
}

/** A `data:` URL's media type and base64 data; `undefined` for any other URL. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const inline = /^data:([^;,]*)(;[^,]*)?;base64,(.*)$/s.exec(url);
  return inline ? { mediaType: inline[1]!, data: inline[3]! } : undefined;
}

/**
 * An image or file part from where its bytes are and its media type: `image` for `image/*` types
 * (a URL's type left out when only `image/*` is known of it), `file` with its name otherwise.
 */
export function mediaPart(
  source: { url: string } | { data: string },
  mediaType: string,
  filename?: string,
): ContentPart {
  if (mediaType.startsWith('image/'))
    return mediaType === 'image/*' && 'url' in source
      ? { type: 'image', ...source }
      : { type: 'image', ...source, mediaType };
  return { type: 'file', ...source, mediaType, ...(filename ? { filename } : {}) };
}
