import { BadRequestException, ValidationPipe } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { compareCodePoints } from '../../../common/canonical-json.js';
import { PageQueryDto } from '../dto/pages.dto.js';
import { type PagePosition, decodePageCursor, encodePageCursor } from './page-cursor.js';

/** The query of `GET /conversations`: the page, and the metadata filter. */
export interface ConversationListQuery {
  page: PageQueryDto;
  /** `metadata[<key>]=<value>` pairs; absent when none is given. */
  metadata?: Record<string, string>;
}

const BRACKETED = /^metadata\[([^\]]*)\]$/;

/** The page fields checked as every route's query is (same pipe options, same messages). */
const PAGE_PIPE = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: true,
});

/**
 * Splits a raw query into the page (`limit`, `cursor`, validated as the other list routes') and the
 * metadata filter, whatever the query parser: Express 5's simple parser gives the literal key
 * `metadata[team]`, an extended one (`qs`) a nested `metadata` object. A key given twice, a nested
 * value or a bare `metadata` is a 400.
 */
export async function parseConversationListQuery(
  raw: Record<string, unknown>,
): Promise<ConversationListQuery> {
  const page: Record<string, unknown> = {};
  const metadata = new Map<string, string>();
  const add = (key: string, value: unknown) => {
    if (typeof value !== 'string')
      throw new BadRequestException(
        `metadata[${key}] must be one string (give each key once: metadata[key]=value)`,
      );
    if (metadata.has(key)) throw new BadRequestException(`metadata[${key}] is given twice`);
    metadata.set(key, value);
  };
  for (const [name, value] of Object.entries(raw ?? {})) {
    const bracketed = BRACKETED.exec(name);
    if (bracketed) add(bracketed[1]!, value);
    else if (name === 'metadata') {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new BadRequestException('metadata is given as metadata[key]=value');
      for (const [key, each] of Object.entries(value)) add(key, each);
    } else page[name] = value;
  }
  const checked = (await PAGE_PIPE.transform(page, {
    type: 'query',
    metatype: PageQueryDto,
  })) as PageQueryDto;
  return {
    page: checked,
    ...(metadata.size > 0 ? { metadata: Object.fromEntries(metadata) } : {}),
  };
}

/** A short digest of a filter (its pairs in key order), which a filtered list's cursor carries. */
function filterDigest(filter: Record<string, string> | undefined): string {
  if (!filter) return '';
  const pairs = Object.entries(filter).sort(([a], [b]) => compareCodePoints(a, b));
  return createHash('sha256').update(JSON.stringify(pairs)).digest('base64url').slice(0, 16);
}

/**
 * The cursor of a conversation list page: the position's cursor, and for a filtered list a `.` and
 * the filter's digest, so that the cursor only continues the list it came from.
 */
export function encodeListCursor(
  position: PagePosition,
  filter: Record<string, string> | undefined,
): string {
  const digest = filterDigest(filter);
  return digest ? `${encodePageCursor(position)}.${digest}` : encodePageCursor(position);
}

/** The position of a list cursor; a 400 when it was given for another filter (or none). */
export function decodeListCursor(
  cursor: string,
  filter: Record<string, string> | undefined,
): PagePosition {
  const dot = cursor.indexOf('.');
  const [position, digest] = dot < 0 ? [cursor, ''] : [cursor.slice(0, dot), cursor.slice(dot + 1)];
  const decoded = decodePageCursor(position);
  if (digest !== filterDigest(filter))
    throw new BadRequestException(
      'cursor belongs to a list with another metadata filter: give the same metadata[...] pairs as for the first page',
    );
  return decoded;
}
