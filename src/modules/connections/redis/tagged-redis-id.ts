/**
 * The start of every Redis key of one id (a conversation, an entity, a run): `{<tag>}<id>`. The
 * hash tag is a short hash of the id, so all of the id's keys share a cluster slot, and it comes
 * before the id: Redis takes the first `{…}` of a key as its tag, so nothing the id holds (`{`, `}`)
 * can move or split it. The id itself follows in full, so keys of different ids never collide,
 * whatever their tags; the tag only spreads ids over slots (FNV-1a, 32 bits, base 36).
 */
export function taggedRedisId(id: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `{${(hash >>> 0).toString(36)}}${id}`;
}
