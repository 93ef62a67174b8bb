import { createHash } from 'node:crypto';

/**
 * The Redis Cluster hash tag of an id: `{` + a digest of the id + `}`. Keys of one conversation or
 * entity carry the same tag, so a script's keys share a slot; built from a digest (132 bits,
 * base64url) rather than the id itself, so no id — one holding `{` or `}`, say — can move or split
 * the tag, and the tag alone tells ids apart.
 */
export function redisHashTag(id: string): string {
  return `{${createHash('sha256').update(id).digest('base64url').slice(0, 22)}}`;
}
