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

/** The position a `cursor` holds; a cursor this API did not give is a 400. */
export function decodePageCursor(cursor: string): PagePosition {
  const match = /^(\d{1,15}):(.+)$/s.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new BadRequestException('cursor is not one this route gave');
  return { at: Number(match[1]), id: match[2]! };
}
