/**
 * Compares two strings by Unicode code point, the order of UTF-8 bytes: the order PostgreSQL
 * (`COLLATE "C"`), SQLite, MySQL (binary columns) and Redis (lexicographic sorted sets) keep, so the
 * in-memory backend lists in the same order as the others.
 */
export function compareCodePoints(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
