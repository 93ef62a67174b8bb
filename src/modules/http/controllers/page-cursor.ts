import { BadRequestException } from '@nestjs/common';

/** The position of a keyset page: a time (epoch ms) and an id that breaks ties. */
export interface PagePosition {
  at: number;
  id: string;
}

/** The opaque `cursor` of a page that ends at `position`. */
export function encodePageCursor(position: PagePosition): string {
  return Buffer.from(`${position.at}:${position.id}`).toString('base64url');
}

/** The longest cursor a route gives: a 15-digit time and an id of up to 255 bytes, in base64url. */
const MAX_CURSOR_LENGTH = 364;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** C0 controls, DEL, and the replacement character that stands for bytes that were not UTF-8. */
const UNFIT_IN_ID = /[\u0000-\u001f\u007f\ufffd]/;

/**
 * The position a `cursor` holds; a cursor this API did not give is a 400 — an over-long one, one
 * that is not base64url, or one whose id holds control characters or bytes that are not UTF-8 (which
 * a database would refuse with an error of its own).
 */
export function decodePageCursor(cursor: string): PagePosition {
  const refused = () => new BadRequestException('cursor is not one this route gave');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw refused();
  const match = /^(\d{1,15}):(.+)$/s.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || UNFIT_IN_ID.test(match[2]!) || Buffer.byteLength(match[2]!) > 255) throw refused();
  return { at: Number(match[1]), id: match[2]! };
}

/** The opaque `cursor` of a page of keys that ends at `key`. */
export function encodeKeyCursor(key: string): string {
  return Buffer.from(key).toString('base64url');
}

/** The longest key cursor: a key of up to 512 UTF-8 bytes, in base64url. */
const MAX_KEY_CURSOR_LENGTH = 683;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What gave a cursor, as a refusal names it: an HTTP route or an MCP tool. */
export type CursorGiver = 'route' | 'tool';

/**
 * The key a key `cursor` holds; one that is over-long, not base64url, or not UTF-8 is a 400 (the
 * store checks the key itself), saying the cursor is not one this route (or MCP tool) gave.
 */
export function decodeKeyCursor(cursor: string, giver: CursorGiver = 'route'): string {
  const refused = () => new BadRequestException(`cursor is not one this ${giver} gave`);
  if (cursor.length > MAX_KEY_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw refused();
  try {
    return STRICT_UTF8.decode(Buffer.from(cursor, 'base64url'));
  } catch {
    throw refused();
  }
}
